//! `ioscout query` as one rank of a job of several processes (MPI): rank 0 plans, every rank
//! reads its share of the chunks, rank 0 writes.
//!
//! # Flow
//!
//! 1. Rank 0 opens the indexes, resolves the hash tables and prunes chunks exactly as one
//!    process does ([`ioscout_query::plan`]); files without a usable index become one chunk each. The
//!    plan (chunks, tables, notes) goes to every rank. A group-by the index statistics answer is
//!    printed by rank 0 at once.
//! 2. Aggregates: each rank folds its chunks (shared by compressed size, longest first) into
//!    mergeable [`Groups`]; the partials are exchanged and merged (exact integer sums and sketch
//!    buckets, so the order does not matter).
//! 3. Rows: the chunk list is read in rounds of about 64 MiB of compressed bytes per rank. In
//!    each round every rank decodes its chunks and sends their rows to rank 0, which writes them
//!    in chunk order (so the output is byte for byte what one process writes) and tells every
//!    rank whether to go on (`--limit` reached, or a rank failed). Memory stays bounded by the
//!    round, not the trace.
//!
//! A rank that cannot read a file fails the query on every rank with its name and the file's.

use std::ops::ControlFlow;

use ioscout_query::Predicate;
use ioscout_query::aggregate::{GroupFold, GroupSpec, Groups};
use ioscout_query::plan::{Plan, Planner};
use ioscout_read::cluster::{self, ClusterError, Collective};
use ioscout_read::{Chunk, FileSummary, InputProblem, ScanReport, TraceFile};

use crate::query::{QueryReport, QueryRequest, print_groups};
use crate::view::{Emitter, Output, Sink, ViewFold, ViewPart};
use crate::{Input, Result};

/// What a rank sends rank 0 for one round of a row query: the rows of each chunk it read (by
/// the chunk's position in the plan) and its per-file summaries, or why it failed.
type Contribution = std::result::Result<(Vec<(usize, ViewPart)>, Vec<FileSummary>), String>;

/// Compressed bytes each rank reads per round of a row query.
const ROUND_BYTES_PER_RANK: u64 = 64 << 20;

/// A query over the inputs, as every rank sees it.
pub(crate) struct Query<'q> {
    pub(crate) input: &'q Input,
    pub(crate) request: &'q QueryRequest,
    pub(crate) predicate: Option<&'q Predicate>,
    pub(crate) spec: Option<&'q GroupSpec>,
    pub(crate) output: &'q Output,
    pub(crate) files: &'q [TraceFile],
    pub(crate) input_problems: &'q [InputProblem],
}

impl Query<'_> {
    /// Runs the query as this rank; rank 0 writes to `out`, the others discard theirs.
    pub(crate) fn run(&self, collective: &dyn Collective, mut out: Sink) -> Result<QueryReport> {
        let plan = (collective.rank() == 0).then(|| Ok(self.plan()));
        let mut plan: Plan = cluster::share_from_root(collective, plan)?;
        let mut notes = std::mem::take(&mut plan.notes);
        let keep = self.input.scan.max_reported_problems;
        let scanner = self.input.scanner();
        if let (Some(groups), Some(spec)) = (&plan.answered, self.spec) {
            let rows = if collective.rank() == 0 {
                print_groups(spec, groups, self.request.format, &mut out, &mut notes)?
            } else {
                Vec::new()
            };
            let report = scanner.scan_chunks(
                self.files,
                self.input_problems,
                &[],
                |_| ioscout_read::NoFold,
                |_, _| ControlFlow::Continue(()),
            );
            return Ok(QueryReport { scan: report, notes, rows });
        }
        let (summaries, rows) = match self.spec {
            Some(spec) => self.groups(collective, &plan, spec, &mut out, &mut notes)?,
            None => self.rows(collective, &plan, out)?,
        };
        let scan = ScanReport::assemble(self.input_problems, keep, summaries);
        Ok(QueryReport { scan, notes, rows })
    }

    /// Rank 0's plan: the chunks to read (pruned by the index where there is one) and the tables.
    fn plan(&self) -> Plan {
        Planner::open(self.files, self.request.index_dir.as_deref(), self.request.no_index).finish(
            &self.input.scanner(),
            self.files,
            self.predicate,
            self.spec,
        )
    }

    /// Aggregates: each rank's chunks into one partial; every rank merges them; rank 0 prints.
    fn groups(
        &self,
        collective: &dyn Collective,
        plan: &Plan,
        spec: &GroupSpec,
        out: &mut Sink,
        notes: &mut Vec<String>,
    ) -> Result<(Vec<FileSummary>, Vec<serde_json::Value>)> {
        let weights: Vec<u64> = plan.chunks.iter().map(|chunk| chunk.end - chunk.start).collect();
        let mine: Vec<Chunk> = cluster::my_share(&weights, collective)
            .into_iter()
            .map(|index| plan.chunks[index].clone())
            .collect();
        let mut groups = Groups::default();
        let report = self.input.scanner().scan_chunks(
            self.files,
            &[],
            &mine,
            |_| GroupFold::new(spec, self.predicate, &plan.tables),
            |_, fold| {
                groups.merge(fold.groups);
                ControlFlow::Continue(())
            },
        );
        let result = match cluster::unreadable(&report.files) {
            Some(message) => Err(message),
            None => Ok((groups, report.files)),
        };
        let mut total = Groups::default();
        let mut summaries: Vec<FileSummary> = Vec::new();
        for (groups, files) in cluster::exchange(collective, &result)? {
            total.merge(groups);
            merge_summaries(&mut summaries, files, self.input.scan.max_reported_problems);
        }
        let rows = if collective.rank() == 0 {
            print_groups(spec, &total, self.request.format, out, notes)?
        } else {
            Vec::new()
        };
        Ok((summaries, rows))
    }

    /// Rows: rounds of chunks; rank 0 writes each round's rows in chunk order (and returns them
    /// for [`crate::view::ViewFormat::Values`]).
    fn rows(
        &self,
        collective: &dyn Collective,
        plan: &Plan,
        out: Sink,
    ) -> Result<(Vec<FileSummary>, Vec<serde_json::Value>)> {
        let root = collective.rank() == 0;
        let keep = self.input.scan.max_reported_problems;
        let mut emitter = if root { Some(Emitter::new(self.output, self.request.limit, out)?) } else { None };
        let limit = self.request.limit.unwrap_or(u64::MAX);
        let scanner = self.input.scanner();
        let weights: Vec<u64> = plan.chunks.iter().map(|chunk| chunk.end - chunk.start).collect();
        let round_bytes = ROUND_BYTES_PER_RANK.saturating_mul(collective.size() as u64);
        let mut summaries: Vec<FileSummary> = Vec::new();
        let mut start = 0;
        let mut stopped = limit == 0;
        while start < plan.chunks.len() && !stopped {
            let mut end = start;
            let mut bytes = 0u64;
            while end < plan.chunks.len() && (end == start || bytes + weights[end] <= round_bytes) {
                bytes += weights[end];
                end += 1;
            }
            let share = cluster::my_share(&weights[start..end], collective);
            let chunks: Vec<Chunk> = share.iter().map(|index| plan.chunks[start + index].clone()).collect();
            let mut parts: Vec<(usize, ViewPart)> = Vec::with_capacity(chunks.len());
            let report = scanner.scan_chunks(
                self.files,
                &[],
                &chunks,
                |_| ViewFold::new(self.predicate, &plan.tables, self.output, limit),
                |_, fold| {
                    parts.push((start + share[parts.len()], fold.into_part()));
                    ControlFlow::Continue(())
                },
            );
            let result: Contribution = match cluster::unreadable(&report.files) {
                Some(message) => Err(message),
                None => Ok((parts, report.files)),
            };
            let gathered = collective.gather(cluster::encode(&result));
            let verdict = gathered.map(|all| write_round(&all, emitter.as_mut(), &mut summaries, keep));
            stopped = cluster::share_from_root(collective, verdict)?;
            start = end;
        }
        let summaries = cluster::share_from_root(collective, root.then_some(Ok(summaries)))?;
        let rows = match emitter {
            Some(emitter) => emitter.finish()?,
            None => Vec::new(),
        };
        Ok((summaries, rows))
    }
}

/// Rank 0: decodes a round's contributions, writes their rows in chunk order, and says whether
/// to stop (the limit reached) or why every rank must (a failure).
fn write_round(
    all: &[Vec<u8>],
    emitter: Option<&mut Emitter>,
    summaries: &mut Vec<FileSummary>,
    keep: usize,
) -> std::result::Result<bool, String> {
    let mut parts = Vec::new();
    let size = all.len();
    for (rank, bytes) in all.iter().enumerate() {
        let contribution: Contribution = cluster::decode(bytes, rank).map_err(|error| error.to_string())?;
        match contribution {
            Ok((mine, files)) => {
                parts.extend(mine);
                merge_summaries(summaries, files, keep);
            }
            Err(message) => {
                return Err(ClusterError::Rank { rank, size, message, others: 0 }.to_string());
            }
        }
    }
    parts.sort_by_key(|(index, _)| *index);
    let Some(emitter) = emitter else { return Ok(false) };
    for (_, part) in &parts {
        if emitter.take_part(part).is_break() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Adds one rank's per-file summaries (every file, counting only its chunks) to `total`.
fn merge_summaries(total: &mut Vec<FileSummary>, files: Vec<FileSummary>, keep: usize) {
    if total.is_empty() {
        *total = files;
        return;
    }
    for (mine, theirs) in total.iter_mut().zip(files) {
        mine.merge(theirs, keep);
    }
}
