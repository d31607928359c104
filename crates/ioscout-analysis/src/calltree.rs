//! The call tree of DFTracer's nested events (`train` > `epoch` > `fetch` > `read`), for the
//! report's flame graph: a step beside the analysis, fed the complete events of a trace.
//!
//! # Method
//!
//! Events of one thread (`pid`, `tid`) nest by time: an event is a child of the innermost
//! earlier-starting event of the same thread whose interval holds it whole. Each thread's events
//! are sorted by start (longest first on ties) and walked with a stack. Events of the same name
//! under the same path are merged into one node: its inclusive time is the sum of their
//! durations, its exclusive time that minus its children's inclusive time, and its count how many
//! there were. An event that starts inside another but ends after it is not its child: it
//! becomes a sibling.
//!
//! The builder holds the events of the threads it was given since the last
//! [`CallTreeBuilder::flush`]; the report flushes after each trace file (DFTracer writes one file
//! per process), so memory grows with the largest file, not with the trace. A scan unit's events
//! are gathered by thread where the unit is decoded ([`UnitEvents`]) and handed to the builder
//! whole ([`CallTreeBuilder::absorb`]): the builder only renames them and appends each thread's.

use rustc_hash::{FxHashMap, FxHashSet};

/// One node: a name under a path.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CallNode {
    /// Index into [`CallTree::names`].
    pub name: u32,
    /// The parent node (`None` for a root).
    pub parent: Option<u32>,
    /// Summed durations of the events merged here, microseconds.
    pub inclusive_us: f64,
    /// Inclusive time less the children's inclusive time, microseconds.
    pub exclusive_us: f64,
    /// Events merged here.
    pub count: u64,
}

/// The merged call tree of every thread.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CallTree {
    /// Event names.
    pub names: Vec<String>,
    /// Nodes; a parent comes before its children.
    pub nodes: Vec<CallNode>,
    /// Events placed.
    pub events: u64,
    /// Threads seen.
    pub threads: u64,
}

impl CallTree {
    /// The root nodes, most inclusive time first.
    pub fn roots(&self) -> Vec<u32> {
        self.children_of(None)
    }

    /// The children of `parent` (roots for `None`), most inclusive time first.
    pub fn children_of(&self, parent: Option<u32>) -> Vec<u32> {
        let mut children: Vec<u32> = (0..self.nodes.len() as u32)
            .filter(|index| self.nodes[*index as usize].parent == parent)
            .collect();
        children.sort_by(|a, b| {
            self.nodes[*b as usize]
                .inclusive_us
                .total_cmp(&self.nodes[*a as usize].inclusive_us)
                .then(a.cmp(b))
        });
        children
    }

    /// The name of `node`.
    pub fn name_of(&self, node: u32) -> &str {
        self.nodes
            .get(node as usize)
            .and_then(|node| self.names.get(node.name as usize))
            .map_or("", String::as_str)
    }
}

/// One event waiting for its thread to be walked.
#[derive(Clone, Copy, Debug)]
struct Interval {
    start: i64,
    end: i64,
    name: u32,
}

/// Event names numbered in the order first met (one table per scan unit, or the builder's).
#[derive(Debug, Default)]
pub struct Names {
    /// The names, by number.
    pub names: Vec<String>,
    index: FxHashMap<Box<str>, u32>,
}

impl Names {
    /// The number of `name`.
    pub fn number(&mut self, name: &str) -> u32 {
        if let Some(index) = self.index.get(name) {
            return *index;
        }
        let index = self.names.len() as u32;
        self.names.push(name.to_string());
        self.index.insert(name.into(), index);
        index
    }
}

/// The nested events of one scan unit by thread, named by the unit's own [`Names`], in the order
/// they were added.
#[derive(Debug, Default)]
pub struct UnitEvents {
    /// The unit's event names.
    pub names: Names,
    threads: Vec<((i64, i64), Vec<Interval>)>,
    /// Each thread's place in `threads`.
    index: FxHashMap<(i64, i64), usize>,
    /// The thread added to last, and its place (a thread's events come in runs).
    last: Option<((i64, i64), usize)>,
}

impl UnitEvents {
    /// Adds an event of thread (`pid`, `tid`) from `start` for `duration` microseconds, named
    /// by [`UnitEvents::names`].
    pub fn add(&mut self, pid: i64, tid: i64, start: i64, duration: i64, name: u32) {
        let thread = (pid, tid);
        let place = match self.last {
            Some((last, place)) if last == thread => place,
            _ => {
                let next = self.threads.len();
                let place = *self.index.entry(thread).or_insert(next);
                if place == next {
                    self.threads.push((thread, Vec::new()));
                }
                self.last = Some((thread, place));
                place
            }
        };
        let end = start.saturating_add(duration.max(0));
        self.threads[place].1.push(Interval { start, end, name });
    }
}

/// Builds a [`CallTree`]; see the module's documentation.
#[derive(Debug, Default)]
pub struct CallTreeBuilder {
    names: Names,
    pending: FxHashMap<(i64, i64), Vec<Interval>>,
    threads: FxHashSet<(i64, i64)>,
    children: FxHashMap<(Option<u32>, u32), u32>,
    tree: CallTree,
}

impl CallTreeBuilder {
    /// Adds the events of a unit, each thread's after those the builder already holds for it,
    /// their names renumbered into the builder's.
    pub fn absorb(&mut self, unit: UnitEvents) {
        let names: Vec<u32> = unit.names.names.iter().map(|name| self.names.number(name)).collect();
        for (thread, mut intervals) in unit.threads {
            for interval in &mut intervals {
                interval.name = names.get(interval.name as usize).copied().unwrap_or(interval.name);
            }
            match self.pending.entry(thread) {
                std::collections::hash_map::Entry::Occupied(mut pending) => {
                    pending.get_mut().extend(intervals);
                }
                std::collections::hash_map::Entry::Vacant(pending) => {
                    pending.insert(intervals);
                }
            }
        }
    }

    /// Walks the threads added since the last flush into the tree.
    pub fn flush(&mut self) {
        let mut threads: Vec<((i64, i64), Vec<Interval>)> = self.pending.drain().collect();
        threads.sort_by_key(|(thread, _)| *thread);
        for (thread, mut intervals) in threads {
            self.threads.insert(thread);
            // Intervals equal in all three are alike: an unstable sort gives the same order.
            intervals.sort_unstable_by(|a, b| {
                a.start.cmp(&b.start).then(b.end.cmp(&a.end)).then(a.name.cmp(&b.name))
            });
            // The open events: their end and their node.
            let mut stack: Vec<(i64, u32)> = Vec::new();
            for interval in intervals {
                while stack.last().is_some_and(|(end, _)| *end < interval.end) {
                    stack.pop();
                }
                let parent = stack.last().map(|(_, node)| *node);
                let node = self.node(parent, interval.name);
                let entry = &mut self.tree.nodes[node as usize];
                entry.inclusive_us += (interval.end - interval.start) as f64;
                entry.count += 1;
                self.tree.events += 1;
                stack.push((interval.end, node));
            }
        }
    }

    fn node(&mut self, parent: Option<u32>, name: u32) -> u32 {
        if let Some(node) = self.children.get(&(parent, name)) {
            return *node;
        }
        let node = self.tree.nodes.len() as u32;
        self.tree.nodes.push(CallNode { name, parent, inclusive_us: 0.0, exclusive_us: 0.0, count: 0 });
        self.children.insert((parent, name), node);
        node
    }

    /// The tree of everything added (flushed first).
    pub fn finish(mut self) -> CallTree {
        self.flush();
        let mut tree = self.tree;
        let mut below = vec![0.0; tree.nodes.len()];
        for node in &tree.nodes {
            if let Some(parent) = node.parent {
                below[parent as usize] += node.inclusive_us;
            }
        }
        for (node, below) in tree.nodes.iter_mut().zip(below) {
            node.exclusive_us = (node.inclusive_us - below).max(0.0);
        }
        tree.names = self.names.names;
        tree.threads = self.threads.len() as u64;
        tree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference the builder is checked against: one event added at a time, straight into
    /// its thread's pending events, named by the builder's own numbering.
    fn add(builder: &mut CallTreeBuilder, (pid, tid): (i64, i64), start: i64, duration: i64, name: &str) {
        let name = builder.names.number(name);
        let end = start.saturating_add(duration.max(0));
        builder.pending.entry((pid, tid)).or_default().push(Interval { start, end, name });
    }

    /// The path of every node, with its inclusive and exclusive time and count.
    fn paths(tree: &CallTree) -> Vec<(String, f64, f64, u64)> {
        let mut out: Vec<(String, f64, f64, u64)> = (0..tree.nodes.len() as u32)
            .map(|index| {
                let mut path = vec![tree.name_of(index).to_string()];
                let mut parent = tree.nodes[index as usize].parent;
                while let Some(up) = parent {
                    path.push(tree.name_of(up).to_string());
                    parent = tree.nodes[up as usize].parent;
                }
                path.reverse();
                let node = &tree.nodes[index as usize];
                (path.join(">"), node.inclusive_us, node.exclusive_us, node.count)
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn nested_events_merge_by_path_in_any_order() {
        let events = [
            ("train", 0, 100),
            ("epoch", 0, 50),
            ("fetch", 0, 20),
            ("read", 2, 5),
            ("read", 10, 5),
            ("compute", 20, 30),
            ("epoch", 50, 50),
            ("fetch", 50, 20),
            ("read", 52, 8),
            // Starts inside the fetch, ends after it: a sibling under the epoch.
            ("read", 65, 10),
        ];
        let mut trees = Vec::new();
        for reversed in [false, true] {
            let mut builder = CallTreeBuilder::default();
            let mut list: Vec<_> = events.to_vec();
            if reversed {
                list.reverse();
            }
            for (name, start, duration) in list {
                add(&mut builder, (1, 1), start, duration, name);
            }
            // Another thread: its own root.
            add(&mut builder, (1, 2), 0, 7, "read");
            trees.push(paths(&builder.finish()));
        }
        assert_eq!(trees[0], trees[1]);
        let expected = vec![
            ("read".to_string(), 7.0, 7.0, 1),
            ("train".to_string(), 100.0, 0.0, 1),
            ("train>epoch".to_string(), 100.0, 20.0, 2),
            ("train>epoch>compute".to_string(), 30.0, 30.0, 1),
            ("train>epoch>fetch".to_string(), 40.0, 22.0, 2),
            ("train>epoch>fetch>read".to_string(), 18.0, 18.0, 3),
            ("train>epoch>read".to_string(), 10.0, 10.0, 1),
        ];
        assert_eq!(trees[0], expected);
    }
    #[test]
    fn units_absorbed_whole_give_the_tree_of_events_added_one_by_one() {
        // Three threads whose events interleave, names shared and not, ties on start and end
        // broken by name; split into units with names of their own, files flushed between.
        let names = ["train", "epoch", "fetch", "read", "open", "compute"];
        let mut state = 7_u64;
        let mut events = Vec::new();
        for index in 0..3_000_i64 {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let thread = (1 + (state >> 60) as i64 % 2, (state >> 40) as i64 % 3);
            let start = index / 4 * 10 + (state >> 20) as i64 % 30;
            let duration = (state >> 8) as i64 % 60 - 5;
            events.push((thread, start, duration, names[(state >> 33) as usize % names.len()]));
        }
        let mut one_by_one = CallTreeBuilder::default();
        let mut whole = CallTreeBuilder::default();
        for (file, events) in events.chunks(1_000).enumerate() {
            for ((pid, tid), start, duration, name) in events {
                add(&mut one_by_one, (*pid, *tid), *start, *duration, name);
            }
            // Units of unequal sizes, each numbering its names afresh.
            for unit_events in events.chunks(170 + file * 60) {
                let mut unit = UnitEvents::default();
                for ((pid, tid), start, duration, name) in unit_events {
                    let name = unit.names.number(name);
                    unit.add(*pid, *tid, *start, *duration, name);
                }
                whole.absorb(unit);
            }
            one_by_one.flush();
            whole.flush();
        }
        let (expected, got) = (one_by_one.finish(), whole.finish());
        assert_eq!(expected.events, 3_000);
        assert!(expected.nodes.len() > 20, "{}", expected.nodes.len());
        assert_eq!(got, expected);
    }
}
