//! The shared-file reduction of Darshan's POSIX and STDIO modules (`posix_record_reduction_op`,
//! `stdio_record_reduction_op`, `*_shared_record_variance`): when every process of the job has a
//! record of a file, the records become one with rank -1 whose counters are summed (operation
//! counts, bytes, size bins, sequential and consecutive counts, times), maximised (highest byte,
//! slowest call and its size, end timestamps) or minimised (start timestamps), whose four common
//! access sizes and strides are merged, and which names the fastest and slowest rank with their
//! bytes and time and the population variance of time and bytes over ranks. Records are combined
//! in rank order, each new rank's record as Darshan's `infile` against the running result.

use crate::common::{merge_common, population_variance};
use crate::{posix, stdio};

/// One (process, file) record to reduce: its rank and counters.
#[derive(Clone, Debug)]
pub struct RankRecord {
    /// The rank.
    pub rank: i64,
    /// Integer counters.
    pub counters: Vec<i64>,
    /// Floating-point counters.
    pub fcounters: Vec<f64>,
}

/// Which module's layout the counters follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// POSIX.
    Posix,
    /// STDIO.
    Stdio,
}

struct Indices {
    fastest: usize,
    fastest_bytes: usize,
    slowest: usize,
    slowest_bytes: usize,
    f_fastest: usize,
    f_slowest: usize,
    f_variance_time: usize,
    f_variance_bytes: usize,
    times: [usize; 3],
    bytes: [usize; 2],
}

fn indices(layout: Layout) -> Indices {
    match layout {
        Layout::Posix => Indices {
            fastest: posix::ix::FASTEST_RANK,
            fastest_bytes: posix::ix::FASTEST_RANK_BYTES,
            slowest: posix::ix::SLOWEST_RANK,
            slowest_bytes: posix::ix::SLOWEST_RANK_BYTES,
            f_fastest: posix::ix::F_FASTEST_RANK_TIME,
            f_slowest: posix::ix::F_SLOWEST_RANK_TIME,
            f_variance_time: posix::ix::F_VARIANCE_RANK_TIME,
            f_variance_bytes: posix::ix::F_VARIANCE_RANK_BYTES,
            times: [posix::ix::F_READ_TIME, posix::ix::F_WRITE_TIME, posix::ix::F_META_TIME],
            bytes: [posix::ix::BYTES_READ, posix::ix::BYTES_WRITTEN],
        },
        Layout::Stdio => Indices {
            fastest: stdio::ix::FASTEST_RANK,
            fastest_bytes: stdio::ix::FASTEST_RANK_BYTES,
            slowest: stdio::ix::SLOWEST_RANK,
            slowest_bytes: stdio::ix::SLOWEST_RANK_BYTES,
            f_fastest: stdio::ix::F_FASTEST_RANK_TIME,
            f_slowest: stdio::ix::F_SLOWEST_RANK_TIME,
            f_variance_time: stdio::ix::F_VARIANCE_RANK_TIME,
            f_variance_bytes: stdio::ix::F_VARIANCE_RANK_BYTES,
            times: [stdio::ix::F_READ_TIME, stdio::ix::F_WRITE_TIME, stdio::ix::F_META_TIME],
            bytes: [stdio::ix::BYTES_READ, stdio::ix::BYTES_WRITTEN],
        },
    }
}

/// Reduces the records of one file, all ranks' (at least one), to its shared record.
pub fn reduce(layout: Layout, mut records: Vec<RankRecord>) -> Option<RankRecord> {
    let at = indices(layout);
    records.sort_by_key(|record| record.rank);
    let mut rank_times = Vec::with_capacity(records.len());
    let mut rank_bytes = Vec::with_capacity(records.len());
    for record in &mut records {
        let time: f64 = at.times.iter().map(|&index| record.fcounters[index]).sum();
        let bytes: i64 = at.bytes.iter().map(|&index| record.counters[index]).fold(0, i64::saturating_add);
        rank_times.push(time);
        rank_bytes.push(bytes as f64);
        record.counters[at.fastest] = record.rank;
        record.counters[at.fastest_bytes] = bytes;
        record.fcounters[at.f_fastest] = time;
        record.counters[at.slowest] = record.rank;
        record.counters[at.slowest_bytes] = bytes;
        record.fcounters[at.f_slowest] = time;
    }
    let mut records = records.into_iter();
    let mut result = records.next()?;
    // Each step writes into `out`, zeroed, and swaps it with the running result, whose counters
    // become the next step's `out`: a file of every rank costs one record's allocation, not two
    // per rank.
    let mut out = RankRecord { rank: -1, counters: Vec::new(), fcounters: Vec::new() };
    for mut infile in records {
        out.rank = -1;
        out.counters.clear();
        out.fcounters.clear();
        match layout {
            Layout::Posix => {
                out.counters.resize(posix::ix::COUNT, 0);
                out.fcounters.resize(posix::ix::F_COUNT, 0.0);
                combine_posix(&mut infile, &mut result, &mut out);
            }
            Layout::Stdio => {
                out.counters.resize(stdio::ix::COUNT, 0);
                out.fcounters.resize(stdio::ix::F_COUNT, 0.0);
                combine_stdio(&infile, &result, &mut out);
            }
        }
        std::mem::swap(&mut result, &mut out);
    }
    result.rank = -1;
    result.fcounters[at.f_variance_time] = population_variance(&rank_times);
    result.fcounters[at.f_variance_bytes] = population_variance(&rank_bytes);
    Some(result)
}

fn min_nonzero(infile: f64, inout: f64) -> f64 {
    if (infile < inout && infile > 0.0) || inout == 0.0 { infile } else { inout }
}

fn fastest_slowest(at: &Indices, infile: &RankRecord, inout: &RankRecord, out: &mut RankRecord) {
    let from = if infile.fcounters[at.f_fastest] < inout.fcounters[at.f_fastest] { infile } else { inout };
    out.counters[at.fastest] = from.counters[at.fastest];
    out.counters[at.fastest_bytes] = from.counters[at.fastest_bytes];
    out.fcounters[at.f_fastest] = from.fcounters[at.f_fastest];
    let from = if infile.fcounters[at.f_slowest] > inout.fcounters[at.f_slowest] { infile } else { inout };
    out.counters[at.slowest] = from.counters[at.slowest];
    out.counters[at.slowest_bytes] = from.counters[at.slowest_bytes];
    out.fcounters[at.f_slowest] = from.fcounters[at.f_slowest];
}

/// Darshan's merge of the four common values of two records: equal values collapse into the
/// first record's, then the first record's four and the second's are inserted into empty slots.
fn merge_four(infile: &mut [i64], inout: &mut [i64], out: &mut [i64], values_at: usize, counts_at: usize) {
    for j in 0..4 {
        for k in 0..4 {
            if infile[values_at + j] == inout[values_at + k] {
                infile[counts_at + j] += inout[counts_at + k];
                inout[values_at + k] = 0;
                inout[counts_at + k] = 0;
            }
        }
    }
    let mut values = [0; 4];
    let mut counts = [0; 4];
    for source in [&*infile, &*inout] {
        for j in 0..4 {
            merge_common(&mut values, &mut counts, source[values_at + j], source[counts_at + j]);
        }
    }
    out[values_at..values_at + 4].copy_from_slice(&values);
    out[counts_at..counts_at + 4].copy_from_slice(&counts);
}

/// Combines `infile` with the running result `inout` into `out` (rank -1, counters zeroed).
fn combine_posix(infile: &mut RankRecord, inout: &mut RankRecord, out: &mut RankRecord) {
    use posix::ix;
    let (a, b) = (&infile.counters, &inout.counters);
    for j in ix::OPENS..=ix::RENAME_TARGETS {
        let sum = a[j].saturating_add(b[j]);
        out.counters[j] = if sum < 0 { -1 } else { sum };
    }
    out.counters[ix::RENAMED_FROM] = a[ix::RENAMED_FROM];
    out.counters[ix::MODE] = a[ix::MODE];
    for j in ix::BYTES_READ..=ix::BYTES_WRITTEN {
        out.counters[j] = a[j].saturating_add(b[j]);
    }
    for j in ix::MAX_BYTE_READ..=ix::MAX_BYTE_WRITTEN {
        out.counters[j] = a[j].max(b[j]);
    }
    for j in ix::CONSEC_READS..=ix::RW_SWITCHES {
        out.counters[j] = a[j].saturating_add(b[j]);
    }
    // Not known from a trace: -1 on every rank stays -1.
    out.counters[ix::MEM_NOT_ALIGNED] = if a[ix::MEM_NOT_ALIGNED] < 0 || b[ix::MEM_NOT_ALIGNED] < 0 {
        -1
    } else {
        a[ix::MEM_NOT_ALIGNED].saturating_add(b[ix::MEM_NOT_ALIGNED])
    };
    out.counters[ix::MEM_ALIGNMENT] = a[ix::MEM_ALIGNMENT];
    out.counters[ix::FILE_NOT_ALIGNED] = a[ix::FILE_NOT_ALIGNED].saturating_add(b[ix::FILE_NOT_ALIGNED]);
    out.counters[ix::FILE_ALIGNMENT] = a[ix::FILE_ALIGNMENT];
    for j in ix::SIZE_READ_0_100..ix::STRIDE1_STRIDE {
        out.counters[j] = a[j].saturating_add(b[j]);
    }
    merge_four(
        &mut infile.counters,
        &mut inout.counters,
        &mut out.counters,
        ix::STRIDE1_STRIDE,
        ix::STRIDE1_COUNT,
    );
    merge_four(
        &mut infile.counters,
        &mut inout.counters,
        &mut out.counters,
        ix::ACCESS1_ACCESS,
        ix::ACCESS1_COUNT,
    );
    let (a, b) = (&infile.fcounters, &inout.fcounters);
    for j in ix::F_OPEN_START_TIMESTAMP..=ix::F_CLOSE_START_TIMESTAMP {
        out.fcounters[j] = min_nonzero(a[j], b[j]);
    }
    for j in ix::F_OPEN_END_TIMESTAMP..=ix::F_CLOSE_END_TIMESTAMP {
        out.fcounters[j] = if a[j] > b[j] { a[j] } else { b[j] };
    }
    for j in ix::F_READ_TIME..=ix::F_META_TIME {
        out.fcounters[j] = a[j] + b[j];
    }
    for (time, size) in
        [(ix::F_MAX_READ_TIME, ix::MAX_READ_TIME_SIZE), (ix::F_MAX_WRITE_TIME, ix::MAX_WRITE_TIME_SIZE)]
    {
        let from = if infile.fcounters[time] > inout.fcounters[time] { &*infile } else { &*inout };
        out.fcounters[time] = from.fcounters[time];
        out.counters[size] = from.counters[size];
    }
    fastest_slowest(&indices(Layout::Posix), infile, inout, out);
}

/// Combines `infile` with the running result `inout` into `out` (rank -1, counters zeroed).
fn combine_stdio(infile: &RankRecord, inout: &RankRecord, out: &mut RankRecord) {
    use stdio::ix;
    let (a, b) = (&infile.counters, &inout.counters);
    for j in ix::OPENS..=ix::BYTES_READ {
        out.counters[j] = a[j].saturating_add(b[j]);
    }
    for j in ix::MAX_BYTE_READ..=ix::MAX_BYTE_WRITTEN {
        out.counters[j] = a[j].max(b[j]);
    }
    let (a, b) = (&infile.fcounters, &inout.fcounters);
    for j in ix::F_META_TIME..=ix::F_READ_TIME {
        out.fcounters[j] = a[j] + b[j];
    }
    for j in ix::F_OPEN_START_TIMESTAMP..=ix::F_READ_START_TIMESTAMP {
        out.fcounters[j] = min_nonzero(a[j], b[j]);
    }
    for j in ix::F_OPEN_END_TIMESTAMP..=ix::F_READ_END_TIMESTAMP {
        out.fcounters[j] = if a[j] > b[j] { a[j] } else { b[j] };
    }
    fastest_slowest(&indices(Layout::Stdio), infile, inout, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn posix_record(rank: i64, reads: i64, bytes: i64, time: f64) -> RankRecord {
        let mut counters = vec![0; posix::ix::COUNT];
        let mut fcounters = vec![0.0; posix::ix::F_COUNT];
        counters[posix::ix::READS] = reads;
        counters[posix::ix::BYTES_READ] = bytes;
        counters[posix::ix::MAX_BYTE_READ] = bytes - 1;
        counters[posix::ix::ACCESS1_ACCESS] = 4096;
        counters[posix::ix::ACCESS1_COUNT] = reads;
        fcounters[posix::ix::F_READ_TIME] = time;
        fcounters[posix::ix::F_READ_START_TIMESTAMP] = 1.0 + rank as f64;
        RankRecord { rank, counters, fcounters }
    }

    #[test]
    fn a_shared_file_sums_counts_merges_accesses_and_names_the_slowest_rank() {
        let shared = reduce(
            Layout::Posix,
            vec![
                posix_record(1, 10, 40_960, 3.0),
                posix_record(0, 5, 20_480, 1.0),
                posix_record(2, 1, 4096, 2.0),
            ],
        );
        let Some(shared) = shared else { panic!("no record") };
        assert_eq!(shared.rank, -1);
        assert_eq!(shared.counters[posix::ix::READS], 16);
        assert_eq!(shared.counters[posix::ix::BYTES_READ], 65_536);
        assert_eq!(shared.counters[posix::ix::MAX_BYTE_READ], 40_959);
        assert_eq!(shared.counters[posix::ix::ACCESS1_ACCESS], 4096);
        assert_eq!(shared.counters[posix::ix::ACCESS1_COUNT], 16);
        assert_eq!(shared.counters[posix::ix::SLOWEST_RANK], 1);
        assert_eq!(shared.counters[posix::ix::SLOWEST_RANK_BYTES], 40_960);
        assert_eq!(shared.counters[posix::ix::FASTEST_RANK], 0);
        assert!((shared.fcounters[posix::ix::F_READ_TIME] - 6.0).abs() < 1e-12);
        assert!((shared.fcounters[posix::ix::F_READ_START_TIMESTAMP] - 1.0).abs() < 1e-12);
        assert!((shared.fcounters[posix::ix::F_VARIANCE_RANK_TIME] - 2.0 / 3.0).abs() < 1e-12);
    }
}
