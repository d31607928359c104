//! The Darshan rules' tables: one row per (rule, fixture), positive and negative, whose findings
//! are pinned by insta snapshots in `snapshots/`, as printed and as JSON (the trace rules'
//! [`printed`] and [`json`]).
//!
//! One table per family (`drishti`, `dxt`, `iosage`, `wisio`, `pipeline`). A rule and its
//! mirror (P05 on reads, P06 on writes) are two rows of one fixture with a [`Direction`]
//! parameter ([`mirrored`]); the fixtures spell their counter names themselves ([`spell`]),
//! not with the code under test. A row's snapshots are named `<family>__<code>__<case>` (and
//! `@json`).

use crate::darshan::rules::{
    AccessPattern, BlockingReads, BlockingWrites, CollectiveReads, CollectiveWrites, FileStrategy,
    Granularity, Healthy, IndividualReadImbalance, IndividualWriteImbalance, Interface, IoGapsRule,
    LongMetadata, Metadata, MisalignedFile, MisalignedMemory, NoCollectiveReads, NoCollectiveWrites, NoMpiIo,
    Parallelism, RandomReads, RandomWrites, RankOutliers, RankZeroHeavy, ReadCountIntensive,
    ReadSizeIntensive, RedundantReadTraffic, RedundantReads, RedundantWriteTraffic, RedundantWrites,
    RepeatedMetadata, SequentialReads, SequentialWrites, SharedDataImbalance, SharedSmallReads,
    SharedSmallWrites, SharedTimeImbalance, SmallReads, SmallWrites, StdioShare, Throughput,
    WisioMetadataTime, WisioOperationMix, WisioSizeMix, WisioSmallReads, WisioSmallWrites,
    WriteCountIntensive, WriteSizeIntensive,
};
use crate::darshan::testing::{codes, dxt, facts, facts_single, record};
use crate::darshan::{DarshanContext, DarshanFacts, DarshanRule, Direction, DrishtiThresholds, Module};
use crate::rules::table_tests::{check_all, check_rows, json, printed};
use crate::{Finding, RuleDoc};

type Record = ioscout_darshan::CounterRecord;

/// One row: `rule` on `facts` with Drishti's default thresholds; `direction` for the rows of
/// a mirrored pair.
#[derive(Clone)]
struct Row {
    case: &'static str,
    rule: &'static dyn DarshanRule,
    direction: Option<Direction>,
    facts: DarshanFacts,
}

impl Row {
    /// The snapshot name: `<family>__<code>__<case>`.
    fn name(&self, family: &str) -> String {
        format!("{family}__{}__{}", self.rule.doc().code.to_ascii_lowercase(), self.case)
    }

    /// The findings of the row's rule on its facts.
    fn findings(&self) -> Vec<Finding> {
        self.rule.evaluate(&DarshanContext::new(&self.facts, DrishtiThresholds::default()))
    }
}

/// A row of a rule without a mirror.
fn single(rule: &'static dyn DarshanRule, case: &'static str, facts: DarshanFacts) -> Vec<Row> {
    vec![Row { case, rule, direction: None, facts }]
}

/// The two rows of a mirrored pair (`rules`: the read rule, then the write rule) on the
/// fixture `facts` of each direction.
fn mirrored(
    rules: [&'static dyn DarshanRule; 2],
    case: &'static str,
    facts: impl Fn(Direction) -> DarshanFacts,
) -> Vec<Row> {
    [Direction::Read, Direction::Write]
        .into_iter()
        .zip(rules)
        .map(|(direction, rule)| Row { case, rule, direction: Some(direction), facts: facts(direction) })
        .collect()
}

/// `template` spelled for `direction`: `{OP}` is `READ` or `WRITE`, `{OPS}` is `READS` or
/// `WRITES`, `{PAST}` is `READ` or `WRITTEN`.
fn spell(direction: Direction, template: &str) -> String {
    let (op, ops, past) = match direction {
        Direction::Read => ("READ", "READS", "READ"),
        Direction::Write => ("WRITE", "WRITES", "WRITTEN"),
    };
    template.replace("{OPS}", ops).replace("{OP}", op).replace("{PAST}", past)
}

/// The other direction.
fn opposite(direction: Direction) -> Direction {
    match direction {
        Direction::Read => Direction::Write,
        Direction::Write => Direction::Read,
    }
}

/// A record of `module` for file `id` on `rank` with the counters of `templates` spelled for
/// `direction`.
fn spelled(module: Module, id: u64, rank: i64, direction: Direction, templates: &[(&str, f64)]) -> Record {
    let names: Vec<(String, f64)> =
        templates.iter().map(|(template, value)| (spell(direction, template), *value)).collect();
    let values: Vec<(&str, f64)> = names.iter().map(|(name, value)| (name.as_str(), *value)).collect();
    record(module, id, rank, &values)
}

/// `facts` with `records` added to their modules.
fn with(mut facts: DarshanFacts, records: Vec<(Module, Record)>) -> DarshanFacts {
    for (module, record) in records {
        match module {
            Module::Posix => facts.posix.push(record),
            Module::MpiIo => facts.mpiio.push(record),
            Module::Stdio => facts.stdio.push(record),
        }
    }
    facts
}

/// One POSIX process over 10 s with one record of file 1 holding `values`.
fn one_posix_record(values: &[(&str, f64)]) -> DarshanFacts {
    with(facts(1, 10.0, &["POSIX"]), vec![(Module::Posix, record(Module::Posix, 1, 0, values))])
}

/// P01-P04 (and WisIO's mixes): `counter` (a template) is `major` in `direction` and `minor` in
/// the other, on one process.
fn intensity(direction: Direction, counter: &str, major: f64, minor: f64) -> DarshanFacts {
    let (major_name, minor_name) = (spell(direction, counter), spell(opposite(direction), counter));
    one_posix_record(&[(major_name.as_str(), major), (minor_name.as_str(), minor)])
}

/// 16 processes with `modules` and one shared MPI-IO record of the `(kind, count)` operations
/// of `direction` (`kind`: `INDEP`, `COLL`, `NB`).
fn mpiio(direction: Direction, modules: &[&str], operations: &[(&str, f64)]) -> DarshanFacts {
    let templates: Vec<(String, f64)> =
        operations.iter().map(|(kind, count)| (format!("MPIIO_{kind}_{{OPS}}"), *count)).collect();
    let templates: Vec<(&str, f64)> = templates.iter().map(|(name, count)| (name.as_str(), *count)).collect();
    with(
        facts(16, 10.0, modules),
        vec![(Module::MpiIo, spelled(Module::MpiIo, 1, -1, direction, &templates))],
    )
}

/// P05/P06: four processes, `requests` of `direction` of which `small` are of 1-10 KiB.
fn small_requests(direction: Direction, requests: f64, small: f64) -> DarshanFacts {
    let templates = [("POSIX_{OPS}", requests), ("POSIX_SIZE_{OP}_1K_10K", small)];
    with(
        facts(4, 10.0, &["POSIX"]),
        vec![(Module::Posix, spelled(Module::Posix, 1, 0, direction, &templates))],
    )
}

/// P07/P08: 100 reads, `misaligned` of them counted by `counter`.
fn misaligned(counter: &str, misaligned: f64) -> DarshanFacts {
    one_posix_record(&[("POSIX_READS", 100.0), (counter, misaligned)])
}

/// P09/P10 and redundant traffic: two processes and one file, either sparse (1 MB moved up to
/// offset 1 GB, by rank 0) or repeated (64 MB moved twice, shared).
fn extent(direction: Direction, repeated: bool) -> DarshanFacts {
    let record = if repeated {
        let templates = [("POSIX_BYTES_{PAST}", 2.0 * 64e6), ("POSIX_MAX_BYTE_{PAST}", 64e6 - 1.0)];
        spelled(Module::Posix, 1, -1, direction, &templates)
    } else {
        let templates = [("POSIX_BYTES_{PAST}", 1e6), ("POSIX_MAX_BYTE_{PAST}", 1e9)];
        spelled(Module::Posix, 1, 0, direction, &templates)
    };
    with(facts(2, 10.0, &["POSIX"]), vec![(Module::Posix, record)])
}

/// P11-P14: 5000 requests of `direction` on one process, with `sequential` and `consecutive`
/// of them.
fn access_order(direction: Direction, sequential: f64, consecutive: Option<f64>) -> DarshanFacts {
    let mut templates = vec![("POSIX_{OPS}", 5000.0), ("POSIX_SEQ_{OPS}", sequential)];
    templates.extend(consecutive.map(|count| ("POSIX_CONSEC_{OPS}", count)));
    with(
        facts(1, 10.0, &["POSIX"]),
        vec![(Module::Posix, spelled(Module::Posix, 1, 0, direction, &templates))],
    )
}

/// P15/P16: eight processes, 3000 requests of 100 B-1 KiB of `direction` on `rank` (-1: shared).
fn shared_small(direction: Direction, rank: i64) -> DarshanFacts {
    let templates = [("POSIX_{OPS}", 3000.0), ("POSIX_SIZE_{OP}_100_1K", 3000.0)];
    with(
        facts(8, 10.0, &["POSIX"]),
        vec![(Module::Posix, spelled(Module::Posix, 1, rank, direction, &templates))],
    )
}

/// P18/P19: eight processes and one shared file with `values`.
fn shared_file(values: &[(&str, f64)]) -> DarshanFacts {
    with(facts(8, 10.0, &["POSIX"]), vec![(Module::Posix, record(Module::Posix, 1, -1, values))])
}

/// P21/P22: four processes, ranks 0 and 1 moving 1000 and `other` bytes of file 1.
fn rank_bytes(direction: Direction, other: f64) -> DarshanFacts {
    let records = [(0, 1000.0), (1, other)]
        .into_iter()
        .map(|(rank, bytes)| {
            (Module::Posix, spelled(Module::Posix, 1, rank, direction, &[("POSIX_BYTES_{PAST}", bytes)]))
        })
        .collect();
    with(facts(4, 10.0, &["POSIX"]), records)
}

/// S01: one process writing `stdio` bytes through STDIO (file 1) and `posix` through POSIX
/// (file 2).
fn stdio_and_posix(stdio: f64, posix: f64) -> DarshanFacts {
    with(
        facts(1, 10.0, &["STDIO", "POSIX"]),
        vec![
            (Module::Stdio, record(Module::Stdio, 1, 0, &[("STDIO_BYTES_WRITTEN", stdio)])),
            (Module::Posix, record(Module::Posix, 2, 0, &[("POSIX_BYTES_WRITTEN", posix)])),
        ],
    )
}

/// P17: four processes over 100 s, rank 2 spending `seconds` in metadata on each of its files.
fn metadata_on_rank_two(seconds: &[f64]) -> DarshanFacts {
    let records = seconds
        .iter()
        .zip(1..)
        .map(|(time, id)| (Module::Posix, record(Module::Posix, id, 2, &[("POSIX_F_META_TIME", *time)])))
        .collect();
    with(facts(4, 100.0, &["POSIX"]), records)
}

/// DXT: `nprocs` processes with these DXT POSIX traces.
fn dxt_traces(nprocs: i64, traces: Vec<ioscout_darshan::DxtRecord>) -> DarshanFacts {
    let mut facts = facts(nprocs, 10.0, &["POSIX", "DXT_POSIX"]);
    for record in traces {
        crate::darshan::add_dxt_record(&mut facts.dxt_posix, &record);
    }
    facts
}

/// IOS-FILE-STRATEGY: 64 processes writing 4 GB to one shared Lustre file of `stripes` stripes.
fn shared_lustre_file(stripes: i64) -> DarshanFacts {
    let values = [("POSIX_BYTES_WRITTEN", 4e9), ("POSIX_F_SLOWEST_RANK_TIME", 5.0)];
    let mut facts = with(
        facts(64, 10.0, &["POSIX", "LUSTRE"]),
        vec![(Module::Posix, record(Module::Posix, 7, -1, &values))],
    );
    facts.stripe_counts.insert(7, stripes);
    facts
}

/// WIS-SMALL-READ/WRITE: one process, `requests` of `direction` moving `bytes` in 3 s.
fn timed_requests(direction: Direction, requests: f64, bytes: f64) -> DarshanFacts {
    let templates = [("POSIX_{OPS}", requests), ("POSIX_BYTES_{PAST}", bytes), ("POSIX_F_{OP}_TIME", 3.0)];
    with(
        facts(1, 10.0, &["POSIX"]),
        vec![(Module::Posix, spelled(Module::Posix, 1, 0, direction, &templates))],
    )
}

/// Drishti's triggers on counters.
fn drishti() -> Vec<Row> {
    let collective = [&NoCollectiveReads as &dyn DarshanRule, &NoCollectiveWrites];
    let used = [&CollectiveReads as &dyn DarshanRule, &CollectiveWrites];
    let blocking = [&BlockingReads as &dyn DarshanRule, &BlockingWrites];
    let count = [&ReadCountIntensive as &dyn DarshanRule, &WriteCountIntensive];
    let size = [&ReadSizeIntensive as &dyn DarshanRule, &WriteSizeIntensive];
    let small = [&SmallReads as &dyn DarshanRule, &SmallWrites];
    let redundant = [&RedundantReads as &dyn DarshanRule, &RedundantWrites];
    let random = [&RandomReads as &dyn DarshanRule, &RandomWrites];
    let sequential = [&SequentialReads as &dyn DarshanRule, &SequentialWrites];
    let shared = [&SharedSmallReads as &dyn DarshanRule, &SharedSmallWrites];
    let individual = [&IndividualReadImbalance as &dyn DarshanRule, &IndividualWriteImbalance];
    let with_mpiio = ["MPI-IO", "POSIX"];
    [
        single(&NoMpiIo, "many_processes", facts(64, 10.0, &["POSIX"])),
        single(&NoMpiIo, "single_process", facts_single()),
        single(&NoMpiIo, "with_mpiio", facts(64, 10.0, &["POSIX", "MPI-IO"])),
        mirrored(collective, "independent_only", |d| mpiio(d, &with_mpiio, &[("INDEP", 5000.0)])),
        mirrored(collective, "one_collective", |d| {
            mpiio(d, &with_mpiio, &[("INDEP", 5000.0), ("COLL", 1.0)])
        }),
        mirrored(collective, "few_operations", |d| mpiio(d, &with_mpiio, &[("INDEP", 500.0)])),
        mirrored(used, "collective", |d| mpiio(d, &with_mpiio, &[("COLL", 16.0)])),
        mirrored(used, "independent", |d| mpiio(d, &with_mpiio, &[("INDEP", 16.0)])),
        mirrored(blocking, "blocking", |d| mpiio(d, &["MPI-IO"], &[("INDEP", 5.0)])),
        mirrored(blocking, "non_blocking", |d| mpiio(d, &["MPI-IO"], &[("NB", 5.0)])),
        mirrored(blocking, "without_mpiio", |_| facts_single()),
        mirrored(count, "dominant", |d| intensity(d, "POSIX_{OPS}", 90.0, 10.0)),
        mirrored(count, "balanced", |d| intensity(d, "POSIX_{OPS}", 52.0, 48.0)),
        mirrored(count, "reversed", |d| intensity(d, "POSIX_{OPS}", 10.0, 90.0)),
        mirrored(size, "dominant", |d| intensity(d, "POSIX_BYTES_{PAST}", 90.0, 10.0)),
        mirrored(size, "balanced", |d| intensity(d, "POSIX_BYTES_{PAST}", 52.0, 48.0)),
        mirrored(size, "reversed", |d| intensity(d, "POSIX_BYTES_{PAST}", 10.0, 90.0)),
        mirrored(small, "many_small", |d| small_requests(d, 5000.0, 4000.0)),
        mirrored(small, "few_small", |d| small_requests(d, 900.0, 900.0)),
        mirrored(small, "mostly_large", |d| small_requests(d, 50000.0, 2000.0)),
        single(&MisalignedMemory, "half_misaligned", misaligned("POSIX_MEM_NOT_ALIGNED", 50.0)),
        single(&MisalignedMemory, "mostly_aligned", misaligned("POSIX_MEM_NOT_ALIGNED", 5.0)),
        single(&MisalignedFile, "half_misaligned", misaligned("POSIX_FILE_NOT_ALIGNED", 50.0)),
        single(&MisalignedFile, "mostly_aligned", misaligned("POSIX_FILE_NOT_ALIGNED", 5.0)),
        mirrored(redundant, "sparse", |d| extent(d, false)),
        mirrored(redundant, "repeated", |d| extent(d, true)),
        mirrored(random, "random", |d| access_order(d, 1000.0, None)),
        mirrored(random, "sequential", |d| access_order(d, 4900.0, Some(4000.0))),
        mirrored(sequential, "sequential", |d| access_order(d, 4900.0, Some(4000.0))),
        mirrored(sequential, "random", |d| access_order(d, 1000.0, None)),
        mirrored(sequential, "no_requests", |_| facts_single()),
        mirrored(shared, "shared_file", |d| shared_small(d, -1)),
        mirrored(shared, "unshared_file", |d| shared_small(d, 3)),
        single(&LongMetadata, "long", metadata_on_rank_two(&[45.0, 31.0])),
        single(&LongMetadata, "short", metadata_on_rank_two(&[29.0])),
        single(
            &SharedDataImbalance,
            "unequal_data",
            shared_file(&[
                ("POSIX_BYTES_WRITTEN", 1000.0),
                ("POSIX_SLOWEST_RANK_BYTES", 400.0),
                ("POSIX_FASTEST_RANK_BYTES", 10.0),
            ]),
        ),
        single(
            &SharedDataImbalance,
            "equal_data",
            shared_file(&[
                ("POSIX_BYTES_WRITTEN", 1000.0),
                ("POSIX_SLOWEST_RANK_BYTES", 125.0),
                ("POSIX_FASTEST_RANK_BYTES", 125.0),
            ]),
        ),
        single(
            &SharedTimeImbalance,
            "unequal_time",
            shared_file(&[
                ("POSIX_F_WRITE_TIME", 8.0),
                ("POSIX_F_SLOWEST_RANK_TIME", 3.0),
                ("POSIX_F_FASTEST_RANK_TIME", 0.5),
            ]),
        ),
        single(
            &SharedTimeImbalance,
            "equal_time",
            shared_file(&[
                ("POSIX_F_WRITE_TIME", 8.0),
                ("POSIX_F_SLOWEST_RANK_TIME", 1.0),
                ("POSIX_F_FASTEST_RANK_TIME", 1.0),
            ]),
        ),
        mirrored(individual, "unequal_ranks", |d| rank_bytes(d, 100.0)),
        mirrored(individual, "equal_ranks", |d| rank_bytes(d, 900.0)),
        single(&StdioShare, "stdio_carries_the_bytes", stdio_and_posix(5e6, 1e6)),
        single(&StdioShare, "posix_carries_the_bytes", stdio_and_posix(1e3, 1e9)),
    ]
    .concat()
}

/// DXT Explorer's triggers.
fn dxt_explorer() -> Vec<Row> {
    let megabyte_writes = [(true, 1 << 20); 8];
    [
        single(
            &RankZeroHeavy,
            "rank_zero_does_the_io",
            dxt_traces(4, vec![dxt(0, &megabyte_writes), dxt(1, &[(true, 4096)])]),
        ),
        single(
            &RankZeroHeavy,
            "ranks_share_the_work",
            dxt_traces(4, (0..4).map(|rank| dxt(rank, &megabyte_writes)).collect()),
        ),
        single(&RankZeroHeavy, "single_process", dxt_traces(1, vec![dxt(0, &megabyte_writes)])),
        single(
            &RankOutliers,
            "overloaded_rank",
            dxt_traces(
                8,
                (0..8)
                    .map(|rank| dxt(rank, &[(true, 4096)]))
                    .chain([dxt(5, &[(true, 1 << 20); 20])])
                    .collect(),
            ),
        ),
        single(
            &RankOutliers,
            "balanced",
            dxt_traces(8, (0..8).map(|rank| dxt(rank, &[(true, 4096); 4])).collect()),
        ),
    ]
    .concat()
}

/// IOSage's patterns.
#[allow(clippy::too_many_lines, reason = "a data table: a firing and a quiet row per pattern")]
fn iosage() -> Vec<Row> {
    let file_explosion = with(
        facts(2, 10.0, &["POSIX"]),
        (0..2000)
            .map(|id| {
                let values = [("POSIX_BYTES_READ", 4096.0), ("POSIX_F_META_TIME", 0.002)];
                (Module::Posix, record(Module::Posix, id, 0, &values))
            })
            .collect(),
    );
    let rank_zero_writes = with(
        facts(16, 10.0, &["POSIX"]),
        vec![(Module::Posix, record(Module::Posix, 1, 0, &[("POSIX_F_WRITE_TIME", 6.0)]))],
    );
    let balanced_writes = with(
        facts(4, 10.0, &["POSIX"]),
        (0..4)
            .map(|rank| {
                (Module::Posix, record(Module::Posix, rank as u64, rank, &[("POSIX_F_WRITE_TIME", 3.0)]))
            })
            .collect(),
    );
    let stdio_and_independent = with(
        facts(8, 10.0, &["POSIX", "STDIO", "MPI-IO"]),
        vec![
            (
                Module::Stdio,
                record(Module::Stdio, 1, 0, &[("STDIO_BYTES_WRITTEN", 1e8), ("STDIO_F_WRITE_TIME", 4.0)]),
            ),
            (Module::MpiIo, record(Module::MpiIo, 2, -1, &[("MPIIO_INDEP_WRITES", 5000.0)])),
        ],
    );
    let posix_and_collective = with(
        facts(8, 10.0, &["POSIX", "STDIO", "MPI-IO"]),
        vec![
            (Module::Stdio, record(Module::Stdio, 1, 0, &[("STDIO_BYTES_WRITTEN", 1e3)])),
            (
                Module::Posix,
                record(Module::Posix, 2, 0, &[("POSIX_BYTES_WRITTEN", 1e9), ("POSIX_F_WRITE_TIME", 4.0)]),
            ),
            (
                Module::MpiIo,
                record(Module::MpiIo, 2, -1, &[("MPIIO_INDEP_WRITES", 5000.0), ("MPIIO_COLL_WRITES", 10.0)]),
            ),
        ],
    );
    // Two processes' POSIX requests on a shared file (rank -1), no MPI-IO visible (a trace):
    // 8,000 of 555 B interleaved (3 % consecutive), or the same bytes written front to back.
    let shared_file = |consecutive: f64| {
        with(
            facts(2, 10.0, &["POSIX"]),
            vec![(
                Module::Posix,
                record(
                    Module::Posix,
                    3,
                    -1,
                    &[
                        ("POSIX_READS", 4000.0),
                        ("POSIX_WRITES", 4000.0),
                        ("POSIX_BYTES_READ", 2.44e6),
                        ("POSIX_BYTES_WRITTEN", 2.0e6),
                        ("POSIX_CONSEC_READS", consecutive * 4000.0),
                        ("POSIX_CONSEC_WRITES", consecutive * 4000.0),
                        ("POSIX_F_WRITE_TIME", 0.2),
                        ("POSIX_F_READ_TIME", 0.1),
                    ],
                ),
            )],
        )
    };
    let read_time = |time: f64| {
        with(
            facts(1, 100.0, &["POSIX"]),
            vec![(Module::Posix, record(Module::Posix, 1, 0, &[("POSIX_F_READ_TIME", time)]))],
        )
    };
    [
        single(
            &AccessPattern,
            "random",
            one_posix_record(&[("POSIX_READS", 1e4), ("POSIX_SEQ_READS", 1e3), ("POSIX_F_READ_TIME", 3.0)]),
        ),
        single(
            &AccessPattern,
            "sequential",
            one_posix_record(&[("POSIX_READS", 1e4), ("POSIX_SEQ_READS", 9.9e3), ("POSIX_F_READ_TIME", 3.0)]),
        ),
        single(&FileStrategy, "single_stripe_shared_file", shared_lustre_file(1)),
        single(&FileStrategy, "file_explosion", file_explosion),
        single(&FileStrategy, "striped_shared_file", shared_lustre_file(48)),
        single(
            &Granularity,
            "small_costly_requests",
            one_posix_record(&[
                ("POSIX_READS", 1e5),
                ("POSIX_BYTES_READ", 4096e5),
                ("POSIX_F_READ_TIME", 5.0),
            ]),
        ),
        single(
            &Granularity,
            "large_requests",
            one_posix_record(&[
                ("POSIX_READS", 100.0),
                ("POSIX_BYTES_READ", 400e6),
                ("POSIX_F_READ_TIME", 5.0),
            ]),
        ),
        single(
            &Granularity,
            "cheap_io",
            one_posix_record(&[
                ("POSIX_READS", 1e5),
                ("POSIX_BYTES_READ", 4096e5),
                ("POSIX_F_READ_TIME", 0.01),
            ]),
        ),
        single(&Healthy, "cheap_io", read_time(1.0)),
        single(&Healthy, "io_weighs", read_time(30.0)),
        single(&Interface, "stdio_bulk_and_independent_mpiio", stdio_and_independent),
        single(&Interface, "posix_bulk_and_collectives", posix_and_collective),
        single(&Interface, "shared_file_small_interleaved", shared_file(0.03)),
        single(&Interface, "shared_file_written_in_order", shared_file(0.9)),
        single(
            &Metadata,
            "metadata_dominates",
            one_posix_record(&[("POSIX_OPENS", 1e5), ("POSIX_F_META_TIME", 4.0), ("POSIX_F_READ_TIME", 1.0)]),
        ),
        single(
            &Metadata,
            "data_dominates",
            one_posix_record(&[
                ("POSIX_OPENS", 10.0),
                ("POSIX_F_META_TIME", 0.1),
                ("POSIX_F_READ_TIME", 4.0),
            ]),
        ),
        single(&Parallelism, "rank_zero_does_the_io", rank_zero_writes),
        single(&Parallelism, "balanced", balanced_writes),
        single(
            &Throughput,
            "sync_per_write",
            one_posix_record(&[
                ("POSIX_WRITES", 500.0),
                ("POSIX_FSYNCS", 500.0),
                ("POSIX_F_WRITE_TIME", 4.0),
            ]),
        ),
        single(
            &Throughput,
            "rare_syncs",
            one_posix_record(&[
                ("POSIX_WRITES", 50000.0),
                ("POSIX_FSYNCS", 100.0),
                ("POSIX_F_WRITE_TIME", 4.0),
            ]),
        ),
    ]
    .concat()
}

/// WisIO's rules.
fn wisio() -> Vec<Row> {
    let small = [&WisioSmallReads as &dyn DarshanRule, &WisioSmallWrites];
    [
        single(
            &WisioMetadataTime,
            "metadata_takes_most_time",
            one_posix_record(&[("POSIX_F_META_TIME", 3.0), ("POSIX_F_READ_TIME", 1.0)]),
        ),
        single(
            &WisioMetadataTime,
            "data_takes_most_time",
            one_posix_record(&[("POSIX_F_META_TIME", 1.0), ("POSIX_F_READ_TIME", 3.0)]),
        ),
        single(&WisioOperationMix, "lopsided", intensity(Direction::Read, "POSIX_{OPS}", 900.0, 100.0)),
        single(&WisioOperationMix, "balanced", intensity(Direction::Read, "POSIX_{OPS}", 520.0, 480.0)),
        single(&WisioSizeMix, "lopsided", intensity(Direction::Read, "POSIX_BYTES_{PAST}", 900.0, 100.0)),
        single(&WisioSizeMix, "balanced", intensity(Direction::Read, "POSIX_BYTES_{PAST}", 520.0, 480.0)),
        mirrored(small, "small_requests", |d| timed_requests(d, 1e4, 4096e4)),
        mirrored(small, "large_requests", |d| timed_requests(d, 10.0, 1e8)),
    ]
    .concat()
}

/// The optimisation pipeline's checks on counters.
fn pipeline() -> Vec<Row> {
    let redundant = [&RedundantReadTraffic as &dyn DarshanRule, &RedundantWriteTraffic];
    [
        mirrored(redundant, "repeated", |d| extent(d, true)),
        mirrored(redundant, "sparse", |d| extent(d, false)),
        single(&IoGapsRule, "alternating", steps(true)),
        single(&IoGapsRule, "back_to_back", steps(false)),
        single(&IoGapsRule, "files_reopened", reopened()),
        single(&RepeatedMetadata, "files_reopened", reopened()),
        single(&RepeatedMetadata, "opened_once", steps(true)),
    ]
    .concat()
}

/// PIPE-IO-GAPS: one process of a 10 s job reads a file in 10 reads taking 3 s in all, spread
/// over 8 s with work between them (`alternating`), or one after the other over 3 s.
fn steps(alternating: bool) -> DarshanFacts {
    let end = if alternating { 9.0 } else { 4.0 };
    let values = [
        ("POSIX_READS", 10.0),
        ("POSIX_BYTES_READ", 40e6),
        ("POSIX_F_OPEN_START_TIMESTAMP", 1.0),
        ("POSIX_F_READ_START_TIMESTAMP", 1.0),
        ("POSIX_F_READ_END_TIMESTAMP", end),
        ("POSIX_F_CLOSE_END_TIMESTAMP", end),
        ("POSIX_F_READ_TIME", 3.0),
    ];
    with(facts(1, 10.0, &["POSIX"]), vec![(Module::Posix, record(Module::Posix, 1, 0, &values))])
}

/// PIPE-IO-GAPS: 50 files each opened and read 4 times over the same 8 s, one after the other:
/// each record's window spans the others', so no record's idle time is other work.
fn reopened() -> DarshanFacts {
    let records = (0..50_u32)
        .map(|id| {
            let start = 1.0 + f64::from(id) * 0.01;
            let values = [
                ("POSIX_OPENS", 4.0),
                ("POSIX_READS", 4.0),
                ("POSIX_BYTES_READ", 256.0),
                ("POSIX_F_OPEN_START_TIMESTAMP", start),
                ("POSIX_F_READ_START_TIMESTAMP", start),
                ("POSIX_F_READ_END_TIMESTAMP", start + 7.5),
                ("POSIX_F_CLOSE_END_TIMESTAMP", start + 7.5),
                ("POSIX_F_READ_TIME", 0.05),
                ("POSIX_F_META_TIME", 0.1),
            ];
            (Module::Posix, record(Module::Posix, u64::from(id) + 1, 0, &values))
        })
        .collect();
    with(facts(1, 10.0, &["POSIX"]), records)
}

/// The builder of a table's rows.
type Table = fn() -> Vec<Row>;

/// Every table, by family.
const TABLES: [(&str, Table); 5] = [
    ("drishti", drishti),
    ("dxt", dxt_explorer),
    ("iosage", iosage),
    ("wisio", wisio),
    ("pipeline", pipeline),
];

/// Pins the findings of every row of `family`'s table.
fn check_table(family: &str) {
    let Some((_, table)) = TABLES.iter().find(|(name, _)| *name == family) else {
        panic!("no table {family}");
    };
    check_rows(
        &table(),
        |row| row.name(family),
        |row| assert_findings(&row.name(family), row.rule.doc(), row),
    );
}

/// Pins the findings of `row` as printed and as JSON under `name`.
fn assert_findings(name: &str, doc: &RuleDoc, row: &Row) {
    let findings = row.findings();
    let direction = match row.direction {
        Some(Direction::Read) => ", reads",
        Some(Direction::Write) => ", writes",
        None => "",
    };
    let mut printed_settings = insta::Settings::clone_current();
    printed_settings.set_prepend_module_to_snapshot(false);
    printed_settings.set_omit_expression(true);
    printed_settings
        .set_description(format!("{}: {}\nfixture: {}{direction}", doc.code, doc.title, row.case));
    let mut json_settings = printed_settings.clone();
    json_settings.set_snapshot_suffix("json");
    let printed_check = || printed_settings.bind(|| insta::assert_snapshot!(name, printed(&findings)));
    let json_check = || json_settings.bind(|| insta::assert_snapshot!(name, json(&findings)));
    check_all(&[&printed_check, &json_check]);
}

#[test]
fn drishti_rules() {
    check_table("drishti");
}

#[test]
fn dxt_rules() {
    check_table("dxt");
}

#[test]
fn iosage_rules() {
    check_table("iosage");
}

#[test]
fn wisio_rules() {
    check_table("wisio");
}

#[test]
fn pipeline_rules() {
    check_table("pipeline");
}

#[test]
fn every_rule_has_a_row_that_fires_and_one_that_stays_quiet() {
    let rows: Vec<Row> = TABLES.iter().flat_map(|(_, table)| table()).collect();
    for rule in crate::darshan::rules::all() {
        let code = rule.doc().code;
        let of_rule =
            || rows.iter().filter(|row| row.rule.doc().code == code).map(|row| codes(row.rule, &row.facts));
        assert!(of_rule().any(|codes| codes.contains(&code)), "no row where {code} fires");
        assert!(of_rule().any(|codes| codes.is_empty()), "no row where {code} stays quiet");
    }
}
