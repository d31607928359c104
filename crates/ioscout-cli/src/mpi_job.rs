//! MPI under the `mpi` feature: the [`Collective`] of an MPI job, over the system's MPI library
//! (the `mpi` crate).
//!
//! MPI handles are not `Send`, and MPI wants its calls from the thread that initialised it, so
//! one thread owns MPI for the whole run: it initialises MPI, serves all-gather and gather
//! requests sent over a channel (byte counts first, then `MPI_Allgatherv`/`MPI_Gatherv`), aborts
//! the job on request (a panic on any rank), and finalises MPI when the channel closes.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;

use anyhow::{Context, anyhow};
use ioscout_read::cluster::Collective;
use mpi::datatype::PartitionMut;
use mpi::traits::{Communicator, CommunicatorCollectives, Root};

/// Variables that MPI launchers set in every rank's environment (Open MPI, PMI, Hydra, Slurm, `PMIx`).
const LAUNCHER_VARIABLES: [&str; 5] =
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS"];

/// The standard error this rank started with (ranks other than 0 write theirs to `/dev/null`).
static ORIGINAL_STDERR: OnceLock<Mutex<std::fs::File>> = OnceLock::new();

/// The requests channel of the MPI thread, for [`abort`].
static ABORT: OnceLock<Mutex<Sender<Request>>> = OnceLock::new();

/// Ends the whole job after a failure only this rank may have met (the other ranks could be
/// waiting in a collective operation this rank will never reach): says so on this rank's
/// original standard error, then `MPI_Abort`.
pub(crate) fn abort(rank: usize, message: &str, code: i32) -> ! {
    use std::io::Write as _;
    if let Some(stderr) = ORIGINAL_STDERR.get() {
        let mut stderr = stderr.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writeln!(stderr, "ioscout: rank {rank}: {message}; aborting the MPI job");
    }
    if let Some(requests) = ABORT.get() {
        let _ = requests.lock().unwrap_or_else(PoisonError::into_inner).send(Request::Abort(code));
    }
    // MPI_Abort ends this process and the job; wait for it.
    std::thread::sleep(std::time::Duration::from_mins(1));
    std::process::exit(code)
}

/// Whether this process was started by an MPI launcher.
pub(crate) fn launched() -> bool {
    LAUNCHER_VARIABLES.iter().any(|name| std::env::var_os(name).is_some())
}

enum Request {
    AllGather(Vec<u8>, Sender<Vec<Vec<u8>>>),
    Gather(Vec<u8>, Sender<Option<Vec<Vec<u8>>>>),
    Abort(i32),
    /// The run is over: finalise MPI.
    Finish,
}

/// One rank's view of the MPI job.
struct MpiCollective {
    rank: usize,
    size: usize,
    requests: Mutex<Sender<Request>>,
}

impl MpiCollective {
    fn ask<T: Default>(&self, make: impl FnOnce(Sender<T>) -> Request) -> T {
        let (reply, answer) = channel();
        let sent = self.requests.lock().unwrap_or_else(PoisonError::into_inner).send(make(reply));
        // Without the MPI thread there is no answer: every rank then fails to decode and says so.
        if sent.is_err() {
            return T::default();
        }
        answer.recv().unwrap_or_default()
    }
}

impl Collective for MpiCollective {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn all_gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        let mut all = self.ask(|reply| Request::AllGather(bytes, reply));
        all.resize(self.size, Vec::new());
        all
    }

    fn gather(&self, bytes: Vec<u8>) -> Option<Vec<Vec<u8>>> {
        self.ask(|reply| Request::Gather(bytes, reply))
    }
}

/// The MPI thread, joined when the run ends.
pub(crate) struct Worker {
    requests: Sender<Request>,
    thread: JoinHandle<()>,
}

impl Worker {
    /// Asks the MPI thread to finalise MPI and waits for it (the collective and the panic hook
    /// hold senders of their own, so closing this one would not end the thread).
    pub(crate) fn finish(self) {
        let _ = self.requests.send(Request::Finish);
        let _ = self.thread.join();
    }
}

/// Byte counts as MPI counts (`-1` for a buffer MPI cannot take in one message).
fn count_of(bytes: &[u8]) -> i32 {
    i32::try_from(bytes.len()).unwrap_or(-1)
}

/// Displacements of `counts`, or `None` when a count is unusable or the total overflows.
fn displacements(counts: &[i32]) -> Option<Vec<i32>> {
    let mut displacements = Vec::with_capacity(counts.len());
    let mut total: i32 = 0;
    for count in counts {
        if *count < 0 {
            return None;
        }
        displacements.push(total);
        total = total.checked_add(*count)?;
    }
    Some(displacements)
}

fn split(buffer: &[u8], counts: &[i32], displacements: &[i32]) -> Vec<Vec<u8>> {
    counts
        .iter()
        .zip(displacements)
        .map(|(count, start)| {
            let (start, count) = (*start as usize, *count as usize);
            buffer.get(start..start + count).map(<[u8]>::to_vec).unwrap_or_default()
        })
        .collect()
}

fn serve(world: &mpi::topology::SimpleCommunicator, request: Request) {
    let size = world.size() as usize;
    match request {
        Request::AllGather(bytes, reply) => {
            let mut counts = vec![0i32; size];
            world.all_gather_into(&count_of(&bytes), &mut counts[..]);
            let Some(displacements) = displacements(&counts) else {
                let _ = reply.send(vec![Vec::new(); size]);
                return;
            };
            let total = counts.iter().map(|count| *count as usize).sum();
            let mut buffer = vec![0u8; total];
            {
                let mut partition = PartitionMut::new(&mut buffer[..], &counts[..], &displacements[..]);
                world.all_gather_varcount_into(&bytes[..], &mut partition);
            }
            let _ = reply.send(split(&buffer, &counts, &displacements));
        }
        Request::Gather(bytes, reply) => {
            let root = world.process_at_rank(0);
            if world.rank() == 0 {
                let mut counts = vec![0i32; size];
                root.gather_into_root(&count_of(&bytes), &mut counts[..]);
                let usable = displacements(&counts);
                let displacements = usable.clone().unwrap_or_else(|| vec![0; size]);
                let safe_counts: Vec<i32> = if usable.is_some() { counts.clone() } else { vec![0; size] };
                let total = safe_counts.iter().map(|count| *count as usize).sum();
                let mut buffer = vec![0u8; total];
                {
                    let mut partition =
                        PartitionMut::new(&mut buffer[..], &safe_counts[..], &displacements[..]);
                    let send: &[u8] = if usable.is_some() { &bytes[..] } else { &[] };
                    root.gather_varcount_into_root(send, &mut partition);
                }
                let _ = reply.send(Some(split(&buffer, &safe_counts, &displacements)));
            } else {
                let count = count_of(&bytes);
                root.gather_into(&count);
                // Rank 0 learns every count before the data: a rank whose buffer is unusable
                // makes every rank send nothing, and rank 0 reports the undecodable result.
                let send: &[u8] = if count < 0 { &[] } else { &bytes[..] };
                root.gather_varcount_into(send);
                let _ = reply.send(None);
            }
        }
        Request::Abort(code) => world.abort(code),
        Request::Finish => {}
    }
}

/// Joins the MPI job: starts the MPI thread, learns rank, size and the ranks sharing this node
/// (returned: each rank's default thread count is the node's cores divided among them), silences the output of ranks
/// other than 0 and makes a panic abort the whole job.
pub(crate) fn start() -> anyhow::Result<(Arc<dyn Collective>, Worker, usize)> {
    let (requests, incoming) = channel::<Request>();
    let (ready, started) = channel::<Option<(usize, usize, usize)>>();
    let thread = std::thread::Builder::new()
        .name("mpi".into())
        .spawn(move || {
            // The process has other threads (the work, rayon's), but only this one calls MPI.
            let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
                let _ = ready.send(None);
                return;
            };
            let world = universe.world();
            let node = world.split_shared(world.rank());
            let _ = ready.send(Some((world.rank() as usize, world.size() as usize, node.size() as usize)));
            drop(node);
            while let Ok(request) = incoming.recv() {
                if matches!(request, Request::Finish) {
                    break;
                }
                serve(&world, request);
            }
            drop(universe);
        })
        .context("starting the MPI thread")?;
    let (rank, size, ranks_on_node) = started.recv().ok().flatten().ok_or_else(|| {
        anyhow!("MPI could not be initialised (is this ioscout built against the launcher's MPI?)")
    })?;
    let saved = nix::unistd::dup(std::io::stderr()).context("duplicating standard error")?;
    let _ = ORIGINAL_STDERR.set(Mutex::new(std::fs::File::from(saved)));
    let _ = ABORT.set(Mutex::new(requests.clone()));
    if rank != 0 && std::env::var_os("IOSCOUT_MPI_ALL_OUTPUT").is_none() {
        silence()?;
    }
    std::panic::set_hook(Box::new(move |info| {
        // A panic on one rank must not leave the others waiting in a collective.
        abort(rank, &format!("panic: {info}"), 3);
    }));
    let collective = MpiCollective { rank, size, requests: Mutex::new(requests.clone()) };
    Ok((Arc::new(collective), Worker { requests, thread }, ranks_on_node))
}

/// Sends this rank's standard output and error to `/dev/null` (its messages about aborting the
/// job still go to the original standard error).
fn silence() -> anyhow::Result<()> {
    let null = std::fs::OpenOptions::new().write(true).open("/dev/null").context("opening /dev/null")?;
    nix::unistd::dup2_stdout(&null).context("redirecting standard output")?;
    nix::unistd::dup2_stderr(&null).context("redirecting standard error")?;
    Ok(())
}
