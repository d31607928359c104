//! The logic of the rules that come in read/write pairs (Drishti's P01-P16, P21/P22, M02-M07,
//! WisIO's small requests and mixes, redundant traffic), written once and parameterised by
//! [`Direction`]; each rule's file keeps its documentation; the rule tables (`table_tests`) test them.

use std::collections::BTreeMap;

use crate::darshan::{DarshanContext, Direction, Level, Module, percent};
use crate::{Finding, RuleDoc, clip01};
use ioscout_darshan::counters::{
    Counter, POSIX_F_META_TIME, POSIX_F_READ_TIME, POSIX_F_WRITE_TIME, POSIX_READS, POSIX_WRITES,
};

/// P01-P04: one direction's `major` total exceeds the other's (`minor`) by more than
/// `imbalance_operations` of their sum (Drishti level INFO).
pub(crate) fn intensity(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    major_counter: Counter,
    minor_counter: Counter,
    labels: (&str, &str),
) -> Vec<Finding> {
    let major = context.total(major_counter);
    let minor = context.total(minor_counter);
    let total = major + minor;
    if major <= minor
        || total <= 0
        || ((major - minor) as f64 / total as f64) <= context.thresholds.imbalance_operations
    {
        return Vec::new();
    }
    let why = format!(
        "{} are {:.2} % and {} {:.2} % of the total ({total})",
        labels.0,
        percent(major as f64, total as f64),
        labels.1,
        percent(minor as f64, total as f64)
    );
    vec![
        context
            .finding(doc, Level::Info, "POSIX", why)
            .with(&major_counter.name().to_ascii_lowercase(), major as f64, "count")
            .with(&minor_counter.name().to_ascii_lowercase(), minor as f64, "count"),
    ]
}

/// P05/P06 (all records) and P15/P16 (`shared_only`: Darshan's reduced records): more than
/// `small_requests` of the requests and more than `small_requests_absolute` of them under 1 MiB.
pub(crate) fn small_requests(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    direction: Direction,
    shared_only: bool,
) -> Vec<Finding> {
    let keep = |record: &ioscout_darshan::CounterRecord| !shared_only || record.rank == -1;
    let word = direction.word();
    let total = context.total_where(direction.posix_operations(), keep);
    let small: i64 = context
        .records(Module::Posix)
        .iter()
        .filter(|record| keep(record))
        .map(|record| context.small(record, direction))
        .sum();
    let share = if total > 0 { small as f64 / total as f64 } else { f64::INFINITY };
    if small <= 0
        || share <= context.thresholds.small_requests
        || small <= context.thresholds.small_requests_absolute
    {
        return Vec::new();
    }
    let share = share.min(1.0);
    let (scope, metric, why) = if shared_only {
        (
            "POSIX shared files",
            format!("shared_small_{word}s"),
            format!("{small} small {word} requests to shared files, {:.2} % of their {word}s", share * 100.0),
        )
    } else {
        let mut by_file: BTreeMap<u64, i64> = BTreeMap::new();
        for record in context.records(Module::Posix) {
            *by_file.entry(record.id).or_default() += context.small(record, direction);
        }
        let heavy: Vec<&str> = by_file
            .iter()
            .filter(|(_, count)| (**count as f64) > small as f64 * context.thresholds.small_requests / 2.0)
            .map(|(id, _)| context.name(*id))
            .collect();
        (
            "POSIX",
            format!("small_{word}s"),
            format!(
                "{small} small {word} requests (< 1 MiB), {:.2} % of {word}s{}",
                share * 100.0,
                match (heavy.len(), heavy.first()) {
                    (0, _) | (_, None) => "; spread over many files, none carries most of them".to_string(),
                    (1, Some(name)) => format!("; one file carries most of them: {name}"),
                    (files, Some(name)) => format!("; {files} files carry most of them, e.g. {name}"),
                }
            ),
        )
    };
    vec![
        context
            .weighted_finding(doc, Level::High, share, scope, why)
            .with(&metric, small as f64, "count")
            .with(&format!("{metric}_share"), share, "fraction")
            .crossing("small share > small_requests")
            .crossing("small count > small_requests_absolute"),
    ]
}

/// P07/P08: requests misaligned in memory or in the file, over all POSIX reads and writes.
pub(crate) fn misaligned(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    counter: Counter,
    word: &str,
) -> Vec<Finding> {
    let operations = context.total(POSIX_READS) + context.total(POSIX_WRITES);
    let misaligned = context.total(counter);
    if operations <= 0 || (misaligned as f64 / operations as f64) <= context.thresholds.misaligned_requests {
        return Vec::new();
    }
    let share = misaligned as f64 / operations as f64;
    let lustre = if context.has_module("LUSTRE") {
        "; the files are on Lustre: match the stripe size to the request size"
    } else {
        ""
    };
    let why = format!(
        "{:.2} % of the POSIX requests ({misaligned} of {operations}) are misaligned in {word}{lustre}",
        share * 100.0
    );
    vec![
        context
            .weighted_finding(doc, Level::High, share, "POSIX", why)
            .with(&format!("misaligned_{word}_requests"), misaligned as f64, "count")
            .with(&format!("misaligned_{word}_share"), share, "fraction")
            .crossing("misaligned share > misaligned_requests"),
    ]
}

/// P09/P10 as Drishti tests them: the highest offset in any file above the bytes over all files
/// (sparse or strided access), reported at INFO; `other` names the rule for real re-reads.
pub(crate) fn sparse_access(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    direction: Direction,
    other: &str,
) -> Vec<Finding> {
    let past = direction.past();
    let highest = context
        .records(Module::Posix)
        .iter()
        .map(|record| context.value(record, direction.posix_max_byte()))
        .max()
        .unwrap_or(0);
    let bytes = context.total(direction.posix_bytes());
    if context.records(Module::Posix).is_empty() || highest <= bytes {
        return Vec::new();
    }
    let why = format!(
        "the highest offset {past} ({highest}) exceeds the bytes {past} ({bytes}): sparse or strided access, not repeated data (see {other} for re-{}s)",
        direction.word()
    );
    vec![
        context
            .finding(doc, Level::Info, "POSIX", why)
            .with(&format!("highest_offset_{past}"), highest as f64, "bytes")
            .with(&format!("bytes_{past}"), bytes as f64, "bytes"),
    ]
}

/// PIPE-REDUNDANT-READ/WRITE: per file, bytes beyond the file's extent, more than 10 % of the
/// bytes and more than 1 MiB.
pub(crate) fn redundant_traffic(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    direction: Direction,
) -> Vec<Finding> {
    let (word, past) = (direction.word(), direction.past());
    let mut files: BTreeMap<u64, (i64, i64)> = BTreeMap::new();
    for record in context.records(Module::Posix) {
        let entry = files.entry(record.id).or_default();
        entry.0 = entry.0.saturating_add(context.value(record, direction.posix_bytes()).max(0));
        entry.1 = entry.1.max(context.value(record, direction.posix_max_byte()));
    }
    let total: i64 = files.values().map(|(bytes, _)| *bytes).fold(0, i64::saturating_add);
    let redundant_of = |(bytes, highest): &(i64, i64)| (*bytes - highest.saturating_add(1)).max(0);
    let redundant: i64 = files.values().map(redundant_of).fold(0, i64::saturating_add);
    if total <= 0 || redundant <= 1 << 20 || (redundant as f64 / total as f64) <= 0.1 {
        return Vec::new();
    }
    let worst = files
        .iter()
        .max_by_key(|(_, totals)| redundant_of(totals))
        .map(|(id, _)| context.name(*id))
        .unwrap_or_default();
    let why = format!(
        "{} of {} {past} ({:.2} %) repeat data already {past} (most in {worst})",
        crate::human_bytes(redundant as f64),
        crate::human_bytes(total as f64),
        percent(redundant as f64, total as f64)
    );
    vec![
        context
            .finding(doc, Level::Warn, "POSIX", why)
            .with(&format!("redundant_{word}_bytes"), redundant as f64, "bytes")
            .with(&format!("redundant_{word}_share"), redundant as f64 / total as f64, "fraction")
            .crossing("redundant bytes > 10 % and > 1 MiB"),
    ]
}

/// P11-P14: random requests (requests after each file's first that are not sequential) over
/// `random_operations` and `random_operations_absolute` (`random`: P11/P13, level HIGH), or the
/// trigger not firing on a direction with requests (P12/P14, level OK).
pub(crate) fn access_order(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    direction: Direction,
    random: bool,
) -> Vec<Finding> {
    let word = direction.word();
    let total = context.total(direction.posix_operations());
    if total <= 0 {
        return Vec::new();
    }
    let consecutive = context.total(direction.posix_consecutive());
    let sequential = context.total(direction.posix_sequential()) - consecutive;
    // Not Drishti's `total - sequential`: a file's first request is not random (see
    // `DarshanContext::not_sequential`; COMPATIBILITY.md).
    let random_count = context.not_sequential(direction);
    let fires = random_count > 0
        && (random_count as f64 / total as f64) > context.thresholds.random_operations
        && random_count > context.thresholds.random_operations_absolute;
    if fires != random {
        return Vec::new();
    }
    if random {
        let share = random_count as f64 / total as f64;
        let why = format!("{random_count} random {word} operations, {:.2} % of {word}s", share * 100.0);
        return vec![
            context
                .weighted_finding(doc, Level::High, share, "POSIX", why)
                .with(&format!("random_{word}s"), random_count as f64, "count")
                .with(&format!("random_{word}_share"), share, "fraction")
                .crossing("random share > random_operations")
                .crossing("random count > random_operations_absolute"),
        ];
    }
    let why = format!(
        "consecutive {:.2} % and sequential {:.2} % of {total} {word}s",
        percent(consecutive as f64, total as f64),
        percent(sequential as f64, total as f64)
    );
    vec![context.finding(doc, Level::Ok, "POSIX", why).with(
        &format!("random_{word}s"),
        random_count as f64,
        "count",
    )]
}

/// P21/P22: files without a shared record whose largest and smallest bytes per rank differ by
/// more than `imbalance_size` of the largest.
pub(crate) fn individual_imbalance(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    direction: Direction,
) -> Vec<Finding> {
    let other = match direction {
        Direction::Read => Direction::Write,
        Direction::Write => Direction::Read,
    };
    let mut files: BTreeMap<u64, (i64, i64)> = BTreeMap::new();
    for record in context.records(Module::Posix).iter().filter(|record| record.rank != -1) {
        let value = context.value(record, direction.posix_bytes());
        // A rank that only moved bytes the other way (the readers of a file one rank wrote) is
        // not one of this direction's ranks: counting its 0 made every such file "100 %
        // imbalanced". A rank with a record and no bytes either way stays, as in Drishti.
        if value == 0 && context.value(record, other.posix_bytes()) > 0 {
            continue;
        }
        let entry = files.entry(record.id).or_insert((value, value));
        entry.0 = entry.0.min(value);
        entry.1 = entry.1.max(value);
    }
    let detected: Vec<(u64, f64)> = files
        .iter()
        .filter(|(_, (_, max))| *max != 0)
        .map(|(id, (min, max))| (*id, (max - min).abs() as f64 / *max as f64))
        .filter(|(_, imbalance)| *imbalance > context.thresholds.imbalance_size)
        .collect();
    super::imbalance_finding(context, doc, &detected, &format!("{} size", direction.word()))
}

/// M02-M05: MPI-IO operations of a direction, none collective and more than
/// `collective_operations_absolute` (`collective == false`: M02/M03, level HIGH), or some
/// collective (M04/M05, level OK).
pub(crate) fn collective_usage(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    direction: Direction,
    collective: bool,
) -> Vec<Finding> {
    if !context.has_module("MPI-IO") {
        return Vec::new();
    }
    let word = direction.word();
    let independent = context.total(direction.mpiio_independent());
    let coll = context.total(direction.mpiio_collective());
    let total = independent + coll;
    if collective {
        if coll <= 0 {
            return Vec::new();
        }
        let why = format!(
            "{coll} collective {word}s, {:.2} % of {total} MPI-IO {word}s",
            percent(coll as f64, total as f64)
        );
        return vec![context.finding(doc, Level::Ok, "MPI-IO", why).with(
            &format!("collective_{word}s"),
            coll as f64,
            "count",
        )];
    }
    if coll != 0 || total <= context.thresholds.collective_operations_absolute {
        return Vec::new();
    }
    let why = format!(
        "{independent} independent MPI-IO {word}s ({:.2} %) and no collective one",
        percent(independent as f64, total as f64)
    );
    vec![
        context
            .finding(doc, Level::High, "MPI-IO", why)
            .with(&format!("independent_{word}s"), independent as f64, "count")
            .crossing("collective = 0 and operations > collective_operations_absolute"),
    ]
}

/// M06/M07: an MPI-IO job without a non-blocking call of a direction (Drishti level WARN).
pub(crate) fn blocking(context: &DarshanContext<'_>, doc: &RuleDoc, direction: Direction) -> Vec<Finding> {
    let word = direction.word();
    if !context.has_module("MPI-IO") || context.total(direction.mpiio_non_blocking()) != 0 {
        return Vec::new();
    }
    let hdf5 = context.has_module("H5F")
        || context.records(Module::MpiIo).iter().any(|record| {
            std::path::Path::new(context.name(record.id)).extension().is_some_and(|extension| {
                extension.eq_ignore_ascii_case("h5") || extension.eq_ignore_ascii_case("hdf5")
            })
        });
    let how = if hdf5 {
        "the HDF5 asynchronous VOL connector".to_string()
    } else {
        format!("MPI_File_i{word} or split collectives")
    };
    let why = format!("no non-blocking MPI-IO {word}: {how} would let computation overlap the I/O");
    vec![context.finding(doc, Level::Warn, "MPI-IO", why).with(
        &format!("non_blocking_{word}s"),
        0.0,
        "count",
    )]
}

/// WIS-SMALL-READ/WRITE: a direction takes more than half the POSIX time and averages under
/// 1 MiB per request.
pub(crate) fn wisio_small(context: &DarshanContext<'_>, doc: &RuleDoc, direction: Direction) -> Vec<Finding> {
    let word = direction.word();
    let time = context.ftotal(direction.posix_time()).max(0.0);
    let total = context.ftotal(POSIX_F_META_TIME).max(0.0)
        + context.ftotal(POSIX_F_READ_TIME).max(0.0)
        + context.ftotal(POSIX_F_WRITE_TIME).max(0.0);
    let operations = context.total(direction.posix_operations());
    let bytes = context.total(direction.posix_bytes()).max(0);
    if total <= 0.0 || operations <= 0 || time / total <= 0.5 {
        return Vec::new();
    }
    let mean = bytes as f64 / operations as f64;
    let mebibyte = 1_048_576.0;
    if mean >= mebibyte {
        return Vec::new();
    }
    let fraction = time / total;
    let score = (0.5 * (fraction - 0.5) / 0.5 + 0.5 * (mebibyte - mean) / mebibyte)
        * clip01(context.io_share() / 0.2);
    let why = format!(
        "{word}s take {:.1} % of the POSIX time and average {}",
        fraction * 100.0,
        crate::human_bytes(mean)
    );
    vec![
        Finding::new(doc, score, "POSIX", why)
            .with(&format!("{word}_time_fraction"), fraction, "fraction")
            .with(&format!("mean_{word}_bytes"), mean, "bytes"),
    ]
}

/// WIS-OP-MIX and WIS-SIZE-MIX: reads and writes (counted by `read_counter` and
/// `write_counter`) differ by more than 10 % of their sum; never above low.
pub(crate) fn wisio_mix(
    context: &DarshanContext<'_>,
    doc: &RuleDoc,
    read_counter: Counter,
    write_counter: Counter,
) -> Vec<Finding> {
    let reads = context.total(read_counter).max(0);
    let writes = context.total(write_counter).max(0);
    let total = reads + writes;
    if total <= 0 {
        return Vec::new();
    }
    let imbalance = (writes - reads).abs() as f64 / total as f64;
    if imbalance <= 0.1 {
        return Vec::new();
    }
    let direction = if writes > reads { "writes" } else { "reads" };
    let why =
        format!("{:.1} % imbalance towards {direction} ({reads} read, {writes} written)", imbalance * 100.0);
    vec![Finding::new(doc, 0.29 * (imbalance - 0.1) / 0.9, "POSIX", why).with(
        "imbalance",
        imbalance,
        "fraction",
    )]
}
