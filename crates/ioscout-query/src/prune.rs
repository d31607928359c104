//! Pruning: deciding from a chunk's statistics that no event in it can match a predicate.
//!
//! # Overview
//!
//! [`Predicate::chunk_may_match`] evaluates the expression tree in three-valued (Kleene) logic
//! over a [`ChunkStats`]: each comparison is [`Truth::False`] when no event of the chunk can
//! satisfy it, [`Truth::True`] when every event does, and [`Truth::Unknown`] otherwise; `and`,
//! `or` and `not` combine these soundly, so `not` of a comparison that no event satisfies is
//! true for every event. A chunk is skipped only when the whole predicate is `False`: pruning
//! never changes the rows a query returns (the property tests check it against full scans).
//!
//! Statistics used, per field: counts by phase (`ph`); the exact (category, name) table (`name`,
//! `cat`); the exact pid table and ranges (`pid`); ranges and a bloom filter (`tid`); ranges
//! (`ts`, `dur`, `id`, `type`); the exact host-token set resolved through HH (`host`); the exact
//! file-token set when small, else a bloom filter for equality (`file`). `args.<key>` is only
//! pruned when no event of the chunk has `args`.

use std::borrow::Cow;

use ioscout_index::ChunkStats;
use ioscout_model::{HashTables, HashToken, Phase};

use crate::{
    Expression, Field, Literal, Number, Operator, Predicate, compare_numbers, literal_number, ordering_holds,
    phase_of_literal,
};

/// Three-valued truth of a predicate over all events of a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    /// No event matches.
    False,
    /// Every event matches.
    True,
    /// Some may, some may not.
    Unknown,
}

impl Truth {
    fn not(self) -> Truth {
        match self {
            Truth::False => Truth::True,
            Truth::True => Truth::False,
            Truth::Unknown => Truth::Unknown,
        }
    }

    fn and(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::False, _) | (_, Truth::False) => Truth::False,
            (Truth::True, Truth::True) => Truth::True,
            _ => Truth::Unknown,
        }
    }

    fn or(self, other: Truth) -> Truth {
        match (self, other) {
            (Truth::True, _) | (_, Truth::True) => Truth::True,
            (Truth::False, Truth::False) => Truth::False,
            _ => Truth::Unknown,
        }
    }
}

impl Predicate {
    /// `false` only if no event of a chunk with these statistics can match.
    pub fn chunk_may_match(&self, stats: &ChunkStats, tables: &HashTables) -> bool {
        self.chunk_truth(stats, tables) != Truth::False
    }

    /// The three-valued truth of the predicate over a chunk.
    pub fn chunk_truth(&self, stats: &ChunkStats, tables: &HashTables) -> Truth {
        if stats.events() == 0 {
            return Truth::False;
        }
        Pruner { stats, tables }.truth(&self.expression)
    }
}

struct Pruner<'p> {
    stats: &'p ChunkStats,
    tables: &'p HashTables,
}

/// What a comparison asks of one value.
#[derive(Clone, Copy)]
enum Test<'t> {
    Compare(Operator, &'t Literal),
    Regex(&'t regex::Regex),
}

impl Test<'_> {
    fn text(&self, value: &str) -> bool {
        match self {
            Test::Compare(operator, literal) => ordering_holds(*operator, value.cmp(literal.text())),
            Test::Regex(regex) => regex.is_match(value),
        }
    }
}

/// Truth of "the field satisfies `test`" given the values the chunk holds for it and how many
/// events carry it.
fn over_values<'v>(
    values: impl Iterator<Item = Cow<'v, str>>,
    present: u64,
    total: u64,
    test: Test<'_>,
) -> Truth {
    if present == 0 {
        return Truth::False;
    }
    let mut any = false;
    let mut all = true;
    for value in values {
        if test.text(&value) {
            any = true;
        } else {
            all = false;
        }
    }
    match (any, all && present == total) {
        (false, _) => Truth::False,
        (true, true) => Truth::True,
        (true, false) => Truth::Unknown,
    }
}

impl Pruner<'_> {
    fn total(&self) -> u64 {
        self.stats.events()
    }

    fn truth(&self, expression: &Expression) -> Truth {
        match expression {
            Expression::And(left, right) => self.truth(left).and(self.truth(right)),
            Expression::Or(left, right) => self.truth(left).or(self.truth(right)),
            Expression::Not(inner) => self.truth(inner).not(),
            Expression::Compare(field, Operator::NotEqual, literal) => {
                self.leaf(field, Test::Compare(Operator::Equal, literal)).not()
            }
            Expression::Compare(field, operator, literal) => {
                self.leaf(field, Test::Compare(*operator, literal))
            }
            Expression::In(Field::Phase, literals) => {
                let phases: Vec<Phase> = literals.iter().filter_map(phase_of_literal).collect();
                self.phase_count(|phase| phases.contains(&phase))
            }
            Expression::In(field, literals) => literals
                .iter()
                .map(|literal| self.leaf(field, Test::Compare(Operator::Equal, literal)))
                .fold(Truth::False, Truth::or),
            Expression::Matches(field, regex, negated) => {
                let truth = self.leaf(field, Test::Regex(regex));
                if *negated { truth.not() } else { truth }
            }
        }
    }

    fn leaf(&self, field: &Field, test: Test<'_>) -> Truth {
        let stats = self.stats;
        match field {
            Field::Phase => self.phase(test),
            Field::Name if !stats.calls_overflow => over_values(
                distinct(stats.calls.values().flat_map(|names| names.keys().map(String::as_str))),
                stats.with_name,
                self.total(),
                test,
            ),
            Field::Cat if !stats.calls_overflow => over_values(
                distinct(stats.calls.keys().map(String::as_str)),
                stats.with_cat,
                self.total(),
                test,
            ),
            Field::Pid => self.number(&stats.pid, test).and(self.pid_set(test)),
            Field::Tid => self.number(&stats.tid, test).and(self.tid_bloom(test)),
            Field::Ts => self.number(&stats.ts, test),
            Field::Dur => self.number(&stats.dur, test),
            Field::Id => self.number(&stats.id, test),
            Field::Kind => self.number(&stats.kind, test),
            Field::Host if !stats.hosts.overflow => over_values(
                stats.hosts.values.iter().map(|value| resolve(value, &self.tables.hosts)),
                stats.with_host,
                self.total(),
                test,
            ),
            Field::File => self.file_bloom(test),
            Field::Arg(_) if stats.with_args == 0 => Truth::False,
            _ => Truth::Unknown,
        }
    }

    fn phase(&self, test: Test<'_>) -> Truth {
        self.phase_count(|phase| match test {
            Test::Compare(Operator::Equal, literal) => phase_of_literal(literal) == Some(phase),
            Test::Compare(..) => false,
            Test::Regex(regex) => regex.is_match(phase.letter()),
        })
    }

    /// Truth of "the event's phase is one for which `matches` holds", from the counts by phase.
    fn phase_count(&self, matches: impl Fn(Phase) -> bool) -> Truth {
        let counts = &self.stats.counts;
        let per_phase = [counts.complete, counts.metadata, counts.counter, counts.aggregated, counts.other];
        let matching: u64 = Phase::ALL
            .iter()
            .zip(per_phase)
            .filter(|(phase, _)| matches(**phase))
            .map(|(_, count)| count)
            .sum();
        if matching == 0 {
            Truth::False
        } else if matching == self.total() {
            Truth::True
        } else {
            Truth::Unknown
        }
    }

    /// Range pruning of a numeric field.
    fn number(&self, range: &ioscout_index::stats::Range, test: Test<'_>) -> Truth {
        if range.present == 0 {
            return Truth::False;
        }
        let Test::Compare(operator, literal) = test else { return Truth::Unknown };
        let Some(value) = literal_number(literal.text()) else { return Truth::False };
        let low = compare_numbers(Number::Integer(i128::from(range.min)), value);
        let high = compare_numbers(Number::Integer(i128::from(range.max)), value);
        let (Some(low), Some(high)) = (low, high) else { return Truth::Unknown };
        let everyone = range.present == self.total();
        // Holds for the smallest and the largest value: for an ordering it holds for all values
        // in between.
        let at_low = ordering_holds(operator, low);
        let at_high = ordering_holds(operator, high);
        match operator {
            Operator::Equal => {
                if low == std::cmp::Ordering::Greater || high == std::cmp::Ordering::Less {
                    Truth::False
                } else if at_low && at_high && everyone {
                    Truth::True
                } else {
                    Truth::Unknown
                }
            }
            _ => match (at_low, at_high) {
                (false, false) => Truth::False,
                (true, true) if everyone => Truth::True,
                _ => Truth::Unknown,
            },
        }
    }

    fn pid_set(&self, test: Test<'_>) -> Truth {
        let stats = self.stats;
        let Test::Compare(Operator::Equal, literal) = test else { return Truth::Unknown };
        if stats.pids_overflow {
            return Truth::Unknown;
        }
        match literal_number(literal.text()) {
            Some(Number::Integer(value)) => {
                if stats.pids.keys().any(|&pid| i128::from(pid) == value) {
                    Truth::Unknown
                } else {
                    Truth::False
                }
            }
            _ => Truth::Unknown,
        }
    }

    fn tid_bloom(&self, test: Test<'_>) -> Truth {
        let Test::Compare(Operator::Equal, literal) = test else { return Truth::Unknown };
        let (Some(Number::Integer(value)), Some(bloom)) =
            (literal_number(literal.text()), &self.stats.tid_bloom)
        else {
            return Truth::Unknown;
        };
        if bloom.might_contain(value.to_string().as_bytes()) { Truth::Unknown } else { Truth::False }
    }

    /// `file` through the bloom filter of file values. For equality the stored values that would
    /// resolve to the literal are the inline name, every FH token naming it, and the literal itself
    /// as an unresolved token. For other tests (a regex, an ordering) the candidates are the FH
    /// tokens whose path passes; this is sound only when every value of the chunk is a token its
    /// file's FH table names (no inline names, none unresolved), and it gives up beyond 10,000
    /// candidates.
    fn file_bloom(&self, test: Test<'_>) -> Truth {
        let stats = self.stats;
        if stats.with_file == 0 {
            return Truth::False;
        }
        let Some(bloom) = &stats.file_bloom else { return Truth::Unknown };
        let mut candidates = Vec::new();
        if let Test::Compare(Operator::Equal, literal) = test {
            let text = literal.text();
            candidates.push(format!("={text}"));
            if !self.tables.files.contains_key(&HashToken(text.to_string())) {
                candidates.push(text.to_string());
            }
        } else if stats.files_inline > 0 || stats.files_unresolved > 0 {
            return Truth::Unknown;
        }
        for (token, path) in &self.tables.files {
            if test.text(path) {
                if candidates.len() >= 10_000 {
                    return Truth::Unknown;
                }
                candidates.push(token.0.clone());
            }
        }
        if candidates.iter().any(|candidate| bloom.might_contain(candidate.as_bytes())) {
            Truth::Unknown
        } else {
            Truth::False
        }
    }
}

/// Distinct values of an iterator over sorted-or-not strings.
fn distinct<'v>(values: impl Iterator<Item = &'v str>) -> impl Iterator<Item = Cow<'v, str>> {
    let set: std::collections::BTreeSet<&str> = values.collect();
    set.into_iter().map(Cow::Borrowed)
}

/// What a stored host or file value resolves to, as at scan time: an inline name (`=name`) is
/// itself; a token resolves through its table, or stays the token.
fn resolve<'v>(value: &'v str, table: &'v ioscout_model::HashTable) -> Cow<'v, str> {
    if let Some(name) = value.strip_prefix('=') {
        return Cow::Borrowed(name);
    }
    match table.get(&HashToken(value.to_string())) {
        Some(name) => Cow::Borrowed(name.as_str()),
        None => Cow::Borrowed(value),
    }
}
