//! A summary over many logs (`ioscout darshan summary --group-by`), folded one log at a time:
//! per group (program, user, processes or job id) the logs, processes, run time, bytes and I/O
//! and metadata time, and the top jobs and files by a metric. Each log is reduced to its
//! [`crate::totals`] and dropped, so a [`Survey`]'s size is the groups, the top lists (at most
//! twice `top` each between trims) and the logs that failed, never the logs read. Surveys of
//! disjoint sets of logs merge, so the logs can be read in parallel.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use crate::totals::{Amounts, FileTotals, GroupBy, JobTotals, RankBy};
use crate::{DarshanLog, ReadOptions};

/// One group of logs.
#[derive(Clone, Debug, Default, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Group {
    /// The program, user, process count or job id the logs share.
    pub key: String,
    /// Logs in the group.
    pub logs: usize,
    /// Processes over the logs.
    pub processes: i64,
    /// Run time over the logs, in seconds.
    pub run_time_s: f64,
    /// The longest run time, in seconds.
    pub max_run_time_s: f64,
    /// Run time times processes: the process-seconds the I/O share is taken of.
    pub process_seconds: f64,
    /// Bytes, operations and times over the logs.
    #[serde(flatten)]
    pub amounts: Amounts,
}

impl Group {
    /// `group`'s logs added to this one's.
    fn add(&mut self, group: &Group) {
        self.logs += group.logs;
        self.processes += group.processes;
        self.run_time_s += group.run_time_s;
        self.max_run_time_s = self.max_run_time_s.max(group.max_run_time_s);
        self.process_seconds += group.process_seconds;
        self.amounts.add(&group.amounts);
    }
}

/// A job in the top list.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TopJob {
    /// The log.
    pub log: String,
    /// The job's totals.
    #[serde(flatten)]
    pub job: JobTotals,
}

/// A file in the top list.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct TopFile {
    /// The log.
    pub log: String,
    /// The file's totals.
    #[serde(flatten)]
    pub file: FileTotals,
}

/// How logs are surveyed: grouped by what, ranked by which metric, how many jobs and files kept,
/// and whether a damaged log gives what could be read.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    /// What the logs are grouped by.
    pub group_by: GroupBy,
    /// What the groups, jobs and files are ranked by.
    pub by: RankBy,
    /// How many jobs and files to keep, most first.
    pub top: usize,
    /// Read what can be read of a damaged log (its problems kept) instead of counting it as
    /// unreadable.
    pub partial: bool,
}

/// What the logs read so far add up to.
#[derive(Clone, Debug, Default)]
pub struct Survey {
    /// Logs read.
    pub read: usize,
    /// The groups by key.
    pub groups: BTreeMap<String, Group>,
    /// The jobs with the most of the metric (sorted and cut to `top` after [`Survey::finish`]).
    pub jobs: Vec<TopJob>,
    /// The files with the most of the metric (likewise).
    pub files: Vec<TopFile>,
    /// The logs that could not be read, with why.
    pub unreadable: Vec<(String, String)>,
    /// The logs read in part, with their problems.
    pub damaged: Vec<(String, Vec<String>)>,
}

/// Most first by the metric, then by log (and file name) for a stable order.
fn job_order(by: RankBy) -> impl Fn(&TopJob, &TopJob) -> std::cmp::Ordering {
    move |left, right| {
        by.of(&right.job.amounts).total_cmp(&by.of(&left.job.amounts)).then(left.log.cmp(&right.log))
    }
}

fn file_order(by: RankBy) -> impl Fn(&TopFile, &TopFile) -> std::cmp::Ordering {
    move |left, right| {
        by.of(&right.file.amounts)
            .total_cmp(&by.of(&left.file.amounts))
            .then(left.log.cmp(&right.log))
            .then(left.file.name.cmp(&right.file.name))
            .then(left.file.rank.cmp(&right.file.rank))
    }
}

impl Survey {
    fn trim(&mut self, plan: &Plan, force: bool) {
        if force || self.jobs.len() > 2 * plan.top.max(1) {
            self.jobs.sort_by(job_order(plan.by));
            self.jobs.truncate(plan.top);
        }
        if force || self.files.len() > 2 * plan.top.max(1) {
            self.files.sort_by(file_order(plan.by));
            self.files.truncate(plan.top);
        }
    }

    /// The log at `path` read, reduced and added; a log that cannot be read is kept with why.
    /// `shown` is how outputs name it.
    #[must_use]
    pub fn add(mut self, path: &Path, shown: String, plan: &Plan) -> Survey {
        let log = match DarshanLog::open_streaming(path, ReadOptions { partial: plan.partial }) {
            Ok(log) => log,
            Err(error) => {
                self.unreadable.push((shown, error.to_string()));
                return self;
            }
        };
        if !log.problems.is_empty() {
            self.damaged.push((shown.clone(), log.problems.iter().map(ToString::to_string).collect()));
        }
        let (job, files) = crate::totals::totals(&log);
        drop(log);
        self.read += 1;
        let key = plan.group_by.key(&job);
        let group = self.groups.entry(key.clone()).or_insert_with(|| Group { key, ..Group::default() });
        group.add(&Group {
            key: String::new(),
            logs: 1,
            processes: job.nprocs.max(0),
            run_time_s: job.run_time_s.max(0.0),
            max_run_time_s: job.run_time_s,
            process_seconds: job.run_time_s.max(0.0) * job.nprocs.max(0) as f64,
            amounts: job.amounts,
        });
        self.files.extend(files.into_iter().map(|file| TopFile { log: shown.clone(), file }));
        self.jobs.push(TopJob { log: shown, job });
        self.trim(plan, false);
        self
    }

    /// The survey of two disjoint sets of logs.
    #[must_use]
    pub fn merge(mut self, other: Survey, plan: &Plan) -> Survey {
        self.read += other.read;
        for (key, group) in other.groups {
            self.groups.entry(key.clone()).or_insert_with(|| Group { key, ..Group::default() }).add(&group);
        }
        self.jobs.extend(other.jobs);
        self.files.extend(other.files);
        self.unreadable.extend(other.unreadable);
        self.damaged.extend(other.damaged);
        self.trim(plan, false);
        self
    }

    /// The top lists sorted and cut to `top`, the failed logs sorted, and the groups most first
    /// by the metric (then by key).
    pub fn finish(&mut self, plan: &Plan) -> Vec<Group> {
        self.trim(plan, true);
        self.unreadable.sort();
        self.damaged.sort();
        let mut groups: Vec<Group> = std::mem::take(&mut self.groups).into_values().collect();
        groups.sort_by(|left, right| {
            plan.by.of(&right.amounts).total_cmp(&plan.by.of(&left.amounts)).then(left.key.cmp(&right.key))
        });
        groups
    }
}
