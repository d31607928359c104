//! Scale-out across the ranks of a job: the collective operations a launcher provides, how the
//! input is shared among ranks, and the exchange of serialised partial results.
//!
//! # Overview
//!
//! The reader, the index, the query and the analysis all fold their input into partial results
//! that merge associatively. Across processes the same holds: each rank folds its share of the
//! files, serialises one partial per file ([`encode`]), and [`exchange`] hands every rank's
//! partials to every rank, which merge them **in input order**, so a job of any number of ranks
//! gives the same bytes as one process (interning order and floating-point sums included).
//!
//! - [`Collective`] is what a launcher provides: rank, size, and an all-gather of byte buffers.
//!   The `ioscout` binary implements it over MPI (cargo feature `mpi`); [`Threads`] implements it
//!   with threads of one process, for tests that must run without MPI.
//! - [`partition`] splits items by weight, longest first onto the least-loaded rank (LPT).
//! - Every exchange carries each rank's `Result`: a rank that fails (a file it cannot read on
//!   its node) still takes part, so no rank waits forever, and every rank returns the same
//!   [`ClusterError`] naming the failed rank and what it could not do.
//!
//! This module sits beside the scanner at the bottom of the pipeline; it knows nothing of MPI.

use std::sync::{Arc, Condvar, Mutex, PoisonError};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The collective operations of a job of several ranks.
///
/// Every rank must make the same sequence of calls; a call returns when every rank has made it.
pub trait Collective: Send + Sync {
    /// This rank (0 is the one that prints).
    fn rank(&self) -> usize;
    /// Ranks in the job.
    fn size(&self) -> usize;
    /// Every rank's `bytes`, in rank order, on every rank.
    fn all_gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>>;
    /// Every rank's `bytes`, in rank order, at rank 0 (`None` on the others).
    fn gather(&self, bytes: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        let rank = self.rank();
        let all = self.all_gather(bytes);
        (rank == 0).then_some(all)
    }

    /// Rank 0's `bytes` on every rank (what the other ranks pass is ignored).
    fn broadcast(&self, bytes: Vec<u8>) -> Vec<u8> {
        let mine = if self.rank() == 0 { bytes } else { Vec::new() };
        self.all_gather(mine).into_iter().next().unwrap_or_default()
    }
}

impl std::fmt::Debug for dyn Collective {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "rank {} of {}", self.rank(), self.size())
    }
}

/// Why a distributed step failed; every rank returns the same error.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ClusterError {
    /// One or more ranks failed; the first is named, with how many others did.
    #[error("rank {rank} of {size}: {message}{}", others_note(*others))]
    Rank {
        /// The first rank that failed.
        rank: usize,
        /// Ranks in the job.
        size: usize,
        /// What it could not do (names the file).
        message: String,
        /// Other ranks that failed too.
        others: usize,
    },
    /// A rank's message could not be decoded (ranks of different ioscout versions).
    #[error("rank {rank}: undecodable partial result ({detail}); are all ranks the same ioscout build?")]
    Decode {
        /// The rank whose bytes did not decode.
        rank: usize,
        /// The decoder's message.
        detail: String,
    },
}

fn others_note(others: usize) -> String {
    match others {
        0 => String::new(),
        1 => " (and 1 other rank failed)".into(),
        more => format!(" (and {more} other ranks failed)"),
    }
}

/// The wire form of a value (postcard).
pub fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    // Serialising plain data into a vector cannot fail; an empty buffer would be refused on
    // decoding with the rank named, never misread.
    postcard::to_stdvec(value).unwrap_or_default()
}

/// Decodes what `rank` sent.
pub fn decode<T: DeserializeOwned>(bytes: &[u8], rank: usize) -> Result<T, ClusterError> {
    postcard::from_bytes(bytes).map_err(|error| ClusterError::Decode { rank, detail: error.to_string() })
}

/// Exchanges each rank's result: every rank gets every rank's value in rank order, or the same
/// error when any rank failed.
pub fn exchange<T: Serialize + DeserializeOwned>(
    collective: &dyn Collective,
    mine: &Result<T, String>,
) -> Result<Vec<T>, ClusterError> {
    let all = collective.all_gather(encode(mine));
    let size = all.len();
    let mut values = Vec::with_capacity(size);
    let mut failures: Vec<(usize, String)> = Vec::new();
    for (rank, bytes) in all.iter().enumerate() {
        match decode::<Result<T, String>>(bytes, rank)? {
            Ok(value) => values.push(value),
            Err(message) => failures.push((rank, message)),
        }
    }
    match failures.first() {
        Some((rank, message)) => Err(ClusterError::Rank {
            rank: *rank,
            size,
            message: message.clone(),
            others: failures.len() - 1,
        }),
        None => Ok(values),
    }
}

/// Rank 0's value on every rank (others pass `None`), or rank 0's error on every rank.
pub fn share_from_root<T: Serialize + DeserializeOwned>(
    collective: &dyn Collective,
    value: Option<Result<T, String>>,
) -> Result<T, ClusterError> {
    let bytes = if collective.rank() == 0 {
        encode(&value.unwrap_or_else(|| Err("rank 0 had nothing to share".into())))
    } else {
        Vec::new()
    };
    let shared = collective.broadcast(bytes);
    match decode::<Result<T, String>>(&shared, 0)? {
        Ok(value) => Ok(value),
        Err(message) => Err(ClusterError::Rank { rank: 0, size: collective.size(), message, others: 0 }),
    }
}

/// The rank of each item: items by decreasing weight (ties in input order), each onto the rank
/// with the least weight so far (ties to the lowest rank). Longest-processing-time first, which
/// is within 4/3 of the best split.
pub fn partition(weights: &[u64], ranks: usize) -> Vec<usize> {
    let ranks = ranks.max(1);
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|left, right| weights[*right].cmp(&weights[*left]).then(left.cmp(right)));
    let mut loads = vec![0u64; ranks];
    let mut owners = vec![0; weights.len()];
    for item in order {
        let (rank, _) =
            loads.iter().enumerate().min_by_key(|(rank, load)| (**load, *rank)).unwrap_or((0, &0));
        owners[item] = rank;
        loads[rank] = loads[rank].saturating_add(weights[item].max(1));
    }
    owners
}

/// The items of `weights` this rank owns under [`partition`], in input order.
pub fn my_share(weights: &[u64], collective: &dyn Collective) -> Vec<usize> {
    let rank = collective.rank();
    partition(weights, collective.size())
        .into_iter()
        .enumerate()
        .filter_map(|(item, owner)| (owner == rank).then_some(item))
        .collect()
}

/// The first unreadable file among `summaries`, as a rank's failure message.
pub fn unreadable(summaries: &[crate::FileSummary]) -> Option<String> {
    summaries.iter().find_map(|summary| {
        summary
            .problems
            .iter()
            .find(|problem| problem.kind == crate::ProblemKind::Unreadable)
            .map(|problem| format!("cannot read {}: {}", problem.path.display(), problem.detail))
    })
}

/// A job of ranks that are threads of this process, for tests and for checking that a
/// distributed fold gives what one process gives. See [`Threads::run`].
#[derive(Debug)]
pub struct Threads {
    rank: usize,
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    size: usize,
    state: Mutex<Round>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct Round {
    slots: Vec<Option<Vec<u8>>>,
    filled: usize,
    generation: u64,
    result: Arc<Vec<Vec<u8>>>,
    readers: usize,
    draining: bool,
}

impl Threads {
    /// Runs `work` on `size` ranks (one thread each) and returns each rank's result in rank order.
    pub fn run<R: Send>(size: usize, work: impl Fn(Arc<dyn Collective>) -> R + Sync) -> Vec<R> {
        let size = size.max(1);
        let shared = Arc::new(Shared {
            size,
            state: Mutex::new(Round { slots: vec![None; size], ..Round::default() }),
            changed: Condvar::new(),
        });
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..size)
                .map(|rank| {
                    let member: Arc<dyn Collective> = Arc::new(Threads { rank, shared: Arc::clone(&shared) });
                    let work = &work;
                    scope.spawn(move || work(member))
                })
                .collect();
            handles
                .into_iter()
                .map(|handle| handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        })
    }
}

impl Collective for Threads {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn all_gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        let shared = &*self.shared;
        let wait = |guard| shared.changed.wait(guard).unwrap_or_else(PoisonError::into_inner);
        let mut round = shared.state.lock().unwrap_or_else(PoisonError::into_inner);
        while round.draining {
            round = wait(round);
        }
        let generation = round.generation;
        round.slots[self.rank] = Some(bytes);
        round.filled += 1;
        if round.filled == shared.size {
            let gathered: Vec<Vec<u8>> =
                round.slots.iter_mut().map(|slot| slot.take().unwrap_or_default()).collect();
            round.result = Arc::new(gathered);
            round.filled = 0;
            round.readers = shared.size;
            round.draining = true;
            round.generation += 1;
            shared.changed.notify_all();
        } else {
            while round.generation == generation {
                round = wait(round);
            }
        }
        let result = Arc::clone(&round.result);
        round.readers -= 1;
        if round.readers == 0 {
            round.draining = false;
            shared.changed.notify_all();
        }
        drop(round);
        Arc::unwrap_or_clone(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_puts_the_longest_first_on_the_least_loaded() {
        assert_eq!(partition(&[5, 3, 3, 2, 2, 1], 2), vec![0, 1, 1, 0, 1, 0]);
        assert_eq!(partition(&[1, 1, 1], 1), vec![0, 0, 0]);
        assert_eq!(partition(&[], 4), Vec::<usize>::new());
        let owners = partition(&[10, 10, 10, 10], 4);
        let mut sorted = owners.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![0, 1, 2, 3]);
    }

    #[test]
    fn threads_gather_in_rank_order_many_times() {
        let results = Threads::run(4, |collective| {
            let mut seen = Vec::new();
            for round in 0..50u8 {
                let all = collective.all_gather(vec![collective.rank() as u8, round]);
                seen.push(all);
            }
            let shared = collective.broadcast(vec![collective.rank() as u8 + 7]);
            (seen, shared)
        });
        for (seen, shared) in results {
            assert_eq!(shared, vec![7]);
            for (round, all) in seen.iter().enumerate() {
                let expected: Vec<Vec<u8>> = (0..4u8).map(|rank| vec![rank, round as u8]).collect();
                assert_eq!(all, &expected);
            }
        }
    }

    #[test]
    fn a_failed_rank_is_named_on_every_rank() {
        let results = Threads::run(3, |collective| {
            let mine = if collective.rank() == 2 { Err("cannot read x.pfw".to_string()) } else { Ok(1u32) };
            exchange(collective.as_ref(), &mine)
        });
        for result in results {
            assert_eq!(
                result,
                Err(ClusterError::Rank { rank: 2, size: 3, message: "cannot read x.pfw".into(), others: 0 })
            );
        }
        let ok =
            Threads::run(2, |collective| exchange(collective.as_ref(), &Ok(collective.rank() as u32 * 10)));
        assert!(ok.iter().all(|values| values == &Ok(vec![0, 10])));
    }
}
