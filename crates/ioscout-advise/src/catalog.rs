//! The strategy catalog and the citation catalog, data files bundled with the crate
//! (`data/strategies.json`, `data/citations.json`) and checked when loaded: every strategy names a
//! known dimension, layer, privilege, file-system type and citation.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::filesystem::FsType;

const STRATEGIES: &str = include_str!("../data/strategies.json");
const CITATIONS: &str = include_str!("../data/citations.json");

/// The twelve dimensions of the optimisation checklist.
pub const DIMENSIONS: [(&str, &str); 12] = [
    ("D1", "L1 buffering (write coalescing, batching, double-buffering)"),
    ("D2", "L1 caching (chunk cache, application-level cache, page-cache hints)"),
    ("D3", "L1 prefetching (asynchronous reads, data-loader workers, fadvise)"),
    ("D4", "L1 stage-in/stage-out (faster intermediate storage, pattern unchanged)"),
    ("D5", "L2 MPI-IO/ROMIO (collective buffering, data sieving, hints)"),
    ("D6", "L2 HDF5 (chunk cache, alignment, collective metadata, async VOL)"),
    ("D7", "L2 other middleware (PnetCDF/NetCDF, compression, framework data-loader overlap)"),
    ("D8", "L3 file-system striping and layout (Lustre striping, PFL/Data-on-MDT, GPFS block size)"),
    ("D9", "L3 near-node and burst-buffer acceleration"),
    ("D10", "L3 OS and kernel tuning (read-ahead, dirty ratios, I/O scheduler, NUMA)"),
    ("D11", "Metadata path (DNE striped directories, packing small files)"),
    ("D12", "Compute/communication overlap (asynchronous checkpointing, overlapping I/O)"),
];

/// A reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Citation {
    /// Authors (empty when the source does not list them).
    #[serde(default, deserialize_with = "null_as_empty")]
    pub authors: String,
    /// Title.
    pub title: String,
    /// Venue.
    pub venue: Option<String>,
    /// Year.
    pub year: Option<u32>,
    /// DOI.
    pub doi: Option<String>,
    /// URL.
    pub url: Option<String>,
    /// Dimensions it covers.
    #[serde(default)]
    pub dimensions: Vec<String>,
    /// Verification status (`V`, `V-2nd`, `U`).
    pub status: Option<String>,
}

impl Citation {
    /// A URL: the DOI's resolver address, else the URL.
    pub fn link(&self) -> Option<String> {
        self.doi.as_ref().map(|doi| format!("https://doi.org/{doi}")).or_else(|| self.url.clone())
    }
}

fn null_as_empty<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.unwrap_or_default())
}

/// Who may apply a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Privilege {
    /// Any user.
    NoSudo,
    /// Root on the node.
    Sudo,
    /// Only the system's administrators.
    AdminOnly,
}

/// What a strategy's measured basis is: the time it can remove.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// All I/O time on the critical path.
    Io,
    /// Read time.
    Read,
    /// Write time.
    Write,
    /// Metadata time.
    Metadata,
    /// Time of requests under 1 MiB.
    SmallIo,
    /// Time of reads under 1 MiB.
    SmallRead,
    /// Time of writes under 1 MiB.
    SmallWrite,
    /// I/O time not hidden behind computation.
    Unoverlapped,
    /// Time in `fsync`/`fdatasync` (a Darshan log: the write time, which holds it).
    Sync,
    /// Metadata time of the calls that repeat on a file already opened or stat'ed.
    RepeatedMetadata,
    /// Read time the gaps between a process's calls could hide: min(read time, other work).
    OverlappableRead,
    /// Write time the gaps between a process's calls could hide: min(write time, other work).
    OverlappableWrite,
    /// The share of the bytes read that were read before, of the read time and of the work
    /// between the reads (decoding the same data again is repeated work too).
    Reread,
    /// Time of the requests under 1 MiB to files shared by several processes, with the caller's
    /// time between them (the calls an aggregation across processes replaces).
    SharedSmallIo,
}

/// The file-system load a strategy removes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SystemEffect {
    /// Data operations.
    Ops,
    /// Metadata operations.
    MetadataOps,
    /// Bytes moved.
    Bandwidth,
    /// Nothing measurable at the file system.
    None,
}

/// One technique.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Strategy {
    /// Stable id.
    pub id: String,
    /// Checklist dimension (`D1`..`D12`).
    pub dimension: String,
    /// `L1`, `L2` or `L3`.
    pub layer: String,
    /// Short name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// Finding codes it answers.
    pub answers: Vec<String>,
    /// File systems it is valid on (`any` for all).
    pub fs_types: Vec<String>,
    /// The measured time it can remove.
    pub basis: Basis,
    /// The share of that time the literature reports removable (a bound).
    pub efficacy: f64,
    /// The file-system load it removes.
    pub system_effect: SystemEffect,
    /// What the job must use for it to apply (`hdf5`, `mpi`, `pnetcdf`, `dl`).
    #[serde(default)]
    pub requires: Vec<String>,
    /// The concrete change.
    pub change: String,
    /// How to undo it.
    pub rollback: String,
    /// Who may apply it.
    pub privilege: Privilege,
    /// Evidence of the run it needs: a condition that does not hold stops it.
    #[serde(default)]
    pub needs: Vec<crate::profile::Condition>,
    /// Evidence that rules it out (it would not help, or would hurt, the diagnosed pattern).
    #[serde(default)]
    pub ruled_out_by: Vec<crate::profile::Condition>,
    /// Whether it changes what the application does (request size, order): such entries are
    /// diagnostic bounds, never recommendations.
    pub changes_access_pattern: bool,
    /// Citation id.
    pub citation: String,
}

impl Strategy {
    /// Whether it may run on file system `fs`.
    pub fn valid_on(&self, fs: FsType) -> bool {
        self.fs_types.iter().any(|name| name == "any")
            || self.fs_types.iter().any(|name| FsType::parse(name) == Some(fs))
    }
}

/// The catalog.
#[derive(Clone, Debug)]
pub struct Catalog {
    /// Strategies.
    pub strategies: Vec<Strategy>,
    /// Citations by id.
    pub citations: BTreeMap<String, Citation>,
}

#[derive(Deserialize)]
struct StrategyFile {
    strategies: Vec<Strategy>,
}

#[derive(Deserialize)]
struct CitationFile {
    citations: BTreeMap<String, Citation>,
}

/// A catalog problem.
#[derive(Debug, thiserror::Error)]
#[error("strategy catalog: {0}")]
pub struct CatalogError(pub String);

impl Catalog {
    /// The bundled catalog, checked.
    pub fn bundled() -> Result<Catalog, CatalogError> {
        let strategies: StrategyFile = serde_json::from_str(STRATEGIES)
            .map_err(|error| CatalogError(format!("strategies.json: {error}")))?;
        let citations: CitationFile = serde_json::from_str(CITATIONS)
            .map_err(|error| CatalogError(format!("citations.json: {error}")))?;
        let catalog = Catalog { strategies: strategies.strategies, citations: citations.citations };
        catalog.check()?;
        Ok(catalog)
    }

    /// Every strategy names a known dimension, layer, file system, requirement and citation, and
    /// a bounded efficacy; ids are unique.
    pub fn check(&self) -> Result<(), CatalogError> {
        let mut ids = std::collections::BTreeSet::new();
        for strategy in &self.strategies {
            let fail = |what: String| Err(CatalogError(format!("{}: {what}", strategy.id)));
            if !ids.insert(&strategy.id) {
                return fail("duplicate id".into());
            }
            if !DIMENSIONS.iter().any(|(dimension, _)| *dimension == strategy.dimension) {
                return fail(format!("unknown dimension {}", strategy.dimension));
            }
            if !["L1", "L2", "L3"].contains(&strategy.layer.as_str()) {
                return fail(format!("unknown layer {}", strategy.layer));
            }
            for name in &strategy.fs_types {
                if name != "any" && FsType::parse(name).is_none() {
                    return fail(format!("unknown file-system type {name}"));
                }
            }
            for requirement in &strategy.requires {
                if !["hdf5", "mpi", "pnetcdf", "dl"].contains(&requirement.as_str()) {
                    return fail(format!("unknown requirement {requirement}"));
                }
            }
            if !(0.0..=1.0).contains(&strategy.efficacy) {
                return fail(format!("efficacy {} outside 0..=1", strategy.efficacy));
            }
            let Some(citation) = self.citations.get(&strategy.citation) else {
                return fail(format!("unknown citation {}", strategy.citation));
            };
            if citation.link().is_none() {
                return fail(format!("citation {} has neither a DOI nor a URL", strategy.citation));
            }
            if strategy.answers.is_empty() || strategy.change.is_empty() || strategy.rollback.is_empty() {
                return fail("answers, change and rollback must not be empty".into());
            }
        }
        Ok(())
    }

    /// The citation of a strategy.
    pub fn citation(&self, strategy: &Strategy) -> Option<&Citation> {
        self.citations.get(&strategy.citation)
    }
}
