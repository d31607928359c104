//! The job this process belongs to: alone, or one rank of an MPI job (cargo feature `mpi`).
//!
//! Under `mpirun`, `srun` or another MPI launcher (detected from the variables launchers set),
//! a build with the `mpi` feature joins the MPI job and hands the operations an
//! [`ioscout_read::cluster::Collective`]; `index`, `query`, `analyze`, `diagnose` (and `report`,
//! `advise`, which build on the analysis) then share their input among the ranks. Only rank 0
//! prints: the other ranks' standard output and error go to `/dev/null` (a panic still reaches
//! the original standard error, and aborts the whole job rather than leaving it hanging; set
//! `IOSCOUT_MPI_ALL_OUTPUT=1` to see every rank's output when debugging).
//! Without a launcher, or without the feature, the binary runs as one process.

use std::sync::{Arc, OnceLock};

use ioscout_read::cluster::Collective;

static CURRENT: OnceLock<Option<Arc<dyn Collective>>> = OnceLock::new();
static RANKS_ON_NODE: OnceLock<usize> = OnceLock::new();

/// The job's collective operations, when this process is a rank of a job of several.
pub(crate) fn current() -> Option<Arc<dyn Collective>> {
    CURRENT.get().cloned().flatten()
}

/// Worker threads per rank when the user did not say: the node's cores shared among the ranks
/// on it (0, all cores, when running alone).
pub(crate) fn default_threads() -> usize {
    match RANKS_ON_NODE.get() {
        Some(&ranks) if ranks > 1 => {
            let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
            (cores / ranks).max(1)
        }
        _ => 0,
    }
}

/// After a command failed: in a job of several ranks, a failure that is not shared by every rank
/// (it does not come from a collective step) ends the whole job (`MPI_Abort`), since the other
/// ranks may be waiting for this one in a collective operation; rank 0 has printed it. Returns
/// when running alone or when every rank has the same error.
pub(crate) fn end_on_local_failure(error: &anyhow::Error, code: i32) {
    let Some(cluster) = current() else { return };
    if cluster.size() < 2 {
        return;
    }
    // Errors every rank meets alike: a collective step's, and those decided by the arguments and
    // the (shared) list of inputs alone.
    let shared = error.chain().any(|cause| {
        cause.downcast_ref::<ioscout_read::cluster::ClusterError>().is_some()
            || cause.downcast_ref::<ioscout_service::ServiceError>().is_some_and(|error| {
                error.is_bad_request() || matches!(error, ioscout_service::ServiceError::NoInput(_))
            })
    });
    if shared {
        return;
    }
    #[cfg(feature = "mpi")]
    crate::mpi_job::abort(cluster.rank(), &format!("{error:#}"), code);
    #[cfg(not(feature = "mpi"))]
    let _ = code;
}

/// Held by `main` for the whole run: dropping it leaves the MPI job (`MPI_Finalize`).
pub(crate) struct Job {
    #[cfg(feature = "mpi")]
    worker: Option<crate::mpi_job::Worker>,
}

impl Drop for Job {
    fn drop(&mut self) {
        #[cfg(feature = "mpi")]
        if let Some(worker) = self.worker.take() {
            worker.finish();
        }
    }
}

/// Joins the MPI job when launched by an MPI launcher (feature `mpi`); otherwise runs alone.
#[cfg_attr(not(feature = "mpi"), allow(clippy::unnecessary_wraps))]
pub(crate) fn start() -> anyhow::Result<Job> {
    #[cfg(feature = "mpi")]
    {
        if crate::mpi_job::launched() {
            let (collective, worker, ranks_on_node) = crate::mpi_job::start()?;
            let _ = CURRENT.set(Some(collective));
            let _ = RANKS_ON_NODE.set(ranks_on_node);
            return Ok(Job { worker: Some(worker) });
        }
        let _ = CURRENT.set(None);
        Ok(Job { worker: None })
    }
    #[cfg(not(feature = "mpi"))]
    {
        let _ = CURRENT.set(None);
        Ok(Job {})
    }
}
