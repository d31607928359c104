//! Pattern cards (IOSage's Table I): per pattern, what it looks like, the change that removes
//! it, when that change does not apply, and the typical feature values of the training runs
//! that carry it.
//!
//! The text is ioscout's, written for the labels of `../shared/corpus/darshan-labelled`; the
//! typical values come from the model file (`cards`, written by the training script from the
//! runs it trained on), so a retrained model brings its own. `ioscout explain PATTERN` prints a
//! card (with the strategies of `ioscout advise` that answer the pattern); `advise` proposes
//! those strategies for the patterns the detector finds.

use crate::model::Model;
use crate::pattern::Pattern;

/// One pattern's card.
#[derive(Clone, Debug, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Card {
    /// The label.
    pub pattern: Pattern,
    /// How the pattern shows in the counters.
    pub behaviour: &'static str,
    /// Configurations that induce it in the training campaigns.
    pub induced_by: &'static str,
    /// The change template.
    pub change: &'static str,
    /// When the change does not apply.
    pub not_when: &'static str,
    /// Training runs with the pattern.
    pub runs: u64,
    /// Typical values of the features that set the pattern apart.
    pub typical: Vec<Typical>,
}

/// A feature's typical values in the pattern's training runs, beside the other runs'.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Typical {
    /// The feature.
    pub feature: String,
    /// First quartile over the pattern's runs.
    pub q1: f64,
    /// Median over the pattern's runs.
    pub median: f64,
    /// Third quartile over the pattern's runs.
    pub q3: f64,
    /// Median over the training runs without the pattern.
    pub others_median: f64,
}

struct Text {
    behaviour: &'static str,
    induced_by: &'static str,
    change: &'static str,
    not_when: &'static str,
}

fn text(pattern: Pattern) -> Text {
    match pattern {
        Pattern::AccessGranularity => Text {
            behaviour: "Most reads or writes move little data (under 100 KiB), so the run pays a fixed cost per call many times over.",
            induced_by: "IOR and iobench with 64 B to 64 KiB transfers; many tiny files; small records read back.",
            change: "Make requests of 1 MiB or more: buffer and aggregate small writes, read larger records, or let collective MPI-IO or an I/O library combine them.",
            not_when: "The small requests take a negligible share of the I/O time, or the record size is fixed by a format other tools read.",
        },
        Pattern::MetadataIntensity => Text {
            behaviour: "Opens, creates, stats and closes take the I/O time; few bytes move per file.",
            induced_by: "mdtest on empty files (1,000 to 20,000 files); IOR creating, writing and removing hundreds of tiny files.",
            change: "Create fewer files: pack small items into one container file (HDF5, a tar or record file), batch metadata calls, keep files open across steps.",
            not_when: "The files are outputs other tools need one by one, such as per-step files of a workflow.",
        },
        Pattern::ParallelismEfficiency => Text {
            behaviour: "Some processes move several times the bytes of the others (or are the only ones doing I/O), so the job waits on them.",
            induced_by: "iobench runs where rank 0 moves 4 to 16 times the others, or is the only rank with I/O.",
            change: "Spread the I/O over the ranks (each writes its part), or use collective I/O so aggregators share the load.",
            not_when: "One rank owns the data by design, such as configuration, logs or a small summary.",
        },
        Pattern::AccessPattern => Text {
            behaviour: "Requests jump around the file instead of following each other, so read-ahead and write-behind do not help.",
            induced_by: "IOR with shuffled offsets; iobench reading back in a random or backward order.",
            change: "Access in offset order: sort requests, read whole ranges and select in memory, or enable data sieving in MPI-IO.",
            not_when: "The data layout fixes the order, or sieving would read far more than is needed.",
        },
        Pattern::InterfaceChoice => Text {
            behaviour: "Ranks share a file through POSIX or independent MPI-IO calls, with no collective call to combine them.",
            induced_by: "IOR on one shared file through POSIX or independent MPI-IO, with interleaved segments per rank.",
            change: "Use the collective calls (MPI_File_write_all / read_all, or the HDF5 and PnetCDF collective modes) and let collective buffering aggregate.",
            not_when: "Each rank writes one large contiguous block, where independent I/O performs as well.",
        },
        Pattern::FileStrategy => Text {
            behaviour: "The data is spread over many files (tens per process), each of a few MiB.",
            induced_by: "IOR multi-file mode (a new file per rank and repetition); mdtest with data-bearing files per rank.",
            change: "Write fewer, larger files: a shared file with collective MPI-IO, or HDF5 or ADIOS2 containers.",
            not_when: "Downstream tools need one file per process or per step.",
        },
        Pattern::ThroughputUtilization => Text {
            behaviour: "Writes are followed by sync calls (fsync or fdatasync after every write), so each write waits for the storage.",
            induced_by: "IOR's fsync after every write (-Y); iobench with fdatasync after every record.",
            change: "Sync once per checkpoint or phase, not per write; let the file system's write-behind work.",
            not_when: "Each write must be durable before the next, as in a journal or a transaction log.",
        },
        Pattern::Healthy => Text {
            behaviour: "Large sequential requests, few files, balanced ranks, no per-write syncs, collective calls on shared files.",
            induced_by: "IOR file per process with 2 to 4 MiB sequential transfers; collective MPI-IO on one shared file; balanced iobench.",
            change: "Nothing to change in the I/O pattern; look at the file system or the compute instead.",
            not_when: "-",
        },
    }
}

impl Card {
    /// The card of `pattern`, with the typical values from `model`.
    pub fn of(pattern: Pattern, model: &Model) -> Card {
        let text = text(pattern);
        let card = model.cards.get(pattern.name());
        let runs = card.and_then(|card| card.get("runs")).and_then(serde_json::Value::as_u64).unwrap_or(0);
        let typical = card
            .and_then(|card| card.get("typical"))
            .and_then(|typical| serde_json::from_value::<Vec<Typical>>(typical.clone()).ok())
            .unwrap_or_default();
        Card {
            pattern,
            behaviour: text.behaviour,
            induced_by: text.induced_by,
            change: text.change,
            not_when: text.not_when,
            runs,
            typical,
        }
    }

    /// The card as text.
    pub fn render(&self) -> String {
        use std::fmt::Write as _;
        let mut out = String::new();
        let _ = writeln!(out, "{} (IOSage pattern)", self.pattern);
        let _ = writeln!(out, "  Behaviour:   {}", self.behaviour);
        let _ = writeln!(out, "  Induced by:  {}", self.induced_by);
        let _ = writeln!(out, "  Change:      {}", self.change);
        let _ = writeln!(out, "  Not when:    {}", self.not_when);
        if !self.typical.is_empty() {
            let _ = writeln!(
                out,
                "  Typical values in {} training runs (median [q1, q3]; other runs' median):",
                self.runs
            );
            let width = self.typical.iter().map(|typical| typical.feature.len()).max().unwrap_or(0);
            for typical in &self.typical {
                let _ = writeln!(
                    out,
                    "    {:width$}  {:>9.3} [{:.3}, {:.3}]; others {:.3}",
                    typical.feature, typical.median, typical.q1, typical.q3, typical.others_median
                );
            }
        }
        out
    }
}
