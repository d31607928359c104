//! How a long call runs: the work goes to a thread of its own while the caller's thread waits
//! with the interpreter released (other Python threads run), waking every 50 ms to pass progress
//! to the caller's callback and to look for Ctrl-C. On `KeyboardInterrupt` (or an exception
//! from the callback) the scan is cancelled ([`ioscout_read::Cancel`]), the worker is waited
//! for, which takes about one unit of decoding, and the exception is raised; nothing keeps
//! running behind the caller's back. Further Ctrl-Cs while the worker winds down are taken
//! and dropped (the first one is the one raised).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::Duration;

use pyo3::prelude::*;

use crate::errors::{Failure, Kind};

/// What the worker shares with the waiting thread: the cancel flag, the stored bytes done and
/// the stored bytes in all (measured by the worker, so the directory walk does not hold the
/// interpreter).
#[derive(Clone, Default)]
pub(crate) struct Hooks {
    pub(crate) cancel: ioscout_read::Cancel,
    done: Arc<AtomicU64>,
    total: Arc<AtomicU64>,
}

/// The input options every scanning call takes.
pub(crate) struct Scan {
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) strict: bool,
    pub(crate) threads: usize,
}

impl Hooks {
    /// The service input of `scan`, wired to these hooks.
    pub(crate) fn input(&self, scan: &Scan) -> ioscout_service::Input {
        let done = self.done.clone();
        let progress = ioscout_read::Progress(Arc::new(move |bytes| {
            done.fetch_add(bytes, Ordering::Relaxed);
        }));
        ioscout_service::Input {
            paths: scan.paths.clone(),
            strict: scan.strict,
            scan: ioscout_read::ScanOptions {
                threads: scan.threads,
                progress: Some(progress),
                cancel: Some(self.cancel.clone()),
                ..ioscout_read::ScanOptions::default()
            },
            cluster: None,
        }
    }

    /// Records the stored bytes of the trace files under `paths`, what progress counts towards.
    pub(crate) fn measure(&self, paths: &[PathBuf]) {
        let total = ioscout_read::discover(paths).0.iter().map(|file| file.size).sum();
        self.total.store(total, Ordering::Relaxed);
    }
}

/// Waits up to 50 ms for the worker's result, with the interpreter released.
fn wait<T: Send>(py: Python<'_>, receiver: &Mutex<Receiver<T>>) -> Result<T, RecvTimeoutError> {
    py.detach(|| match receiver.lock() {
        Ok(receiver) => receiver.recv_timeout(Duration::from_millis(50)),
        Err(_) => Err(RecvTimeoutError::Disconnected),
    })
}

/// Runs `work` on a thread of its own, releasing the interpreter while it runs; calls
/// `progress(done, total)` as stored bytes are read (when `progress` is given, the worker first
/// measures the total under `paths`); stops the work on Ctrl-C.
pub(crate) fn run<T, W>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    paths: &[PathBuf],
    work: W,
) -> PyResult<T>
where
    T: Send + 'static,
    W: FnOnce(&Hooks) -> Result<T, Failure> + Send + 'static,
{
    let hooks = Hooks::default();
    let worker_hooks = hooks.clone();
    let measured = progress.is_some().then(|| paths.to_vec());
    let (sender, receiver) = std::sync::mpsc::channel();
    // A receiver is not shared between threads; the waits lend it to the interpreter-free
    // closure through a lock no one else takes.
    let receiver = Mutex::new(receiver);
    let spawned = std::thread::Builder::new().name("ioscout".into()).spawn(move || {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(paths) = measured {
                worker_hooks.measure(&paths);
            }
            work(&worker_hooks)
        }));
        let _ = sender.send(result);
    });
    if let Err(error) = spawned {
        return Err(crate::errors::Error::new_err(format!("cannot start a worker thread: {error}")));
    }
    let mut reported = u64::MAX;
    loop {
        match wait(py, &receiver) {
            Ok(Ok(result)) => {
                tell(progress, &hooks, &mut reported)?;
                return result.map_err(|failure| failure.into_py_err(py));
            }
            Ok(Err(panic)) => {
                let detail = panic
                    .downcast_ref::<&str>()
                    .map(ToString::to_string)
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                let failure =
                    Failure::new(Kind::Other, format!("internal error (please report it): {detail}"));
                return Err(failure.into_py_err(py));
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Failure::new(Kind::Other, "the worker ended without a result").into_py_err(py));
            }
            Err(RecvTimeoutError::Timeout) => {
                let interrupted = tell(progress, &hooks, &mut reported).and_then(|()| py.check_signals());
                if let Err(error) = interrupted {
                    hooks.cancel.cancel();
                    while let Err(RecvTimeoutError::Timeout) = wait(py, &receiver) {
                        let _ = py.check_signals();
                    }
                    return Err(error);
                }
            }
        }
    }
}

/// Calls the progress callback when the bytes done changed since the last call.
fn tell(progress: Option<&Bound<'_, PyAny>>, hooks: &Hooks, reported: &mut u64) -> PyResult<()> {
    let Some(callback) = progress else { return Ok(()) };
    let total = hooks.total.load(Ordering::Relaxed);
    let done = hooks.done.load(Ordering::Relaxed).min(total);
    if done == *reported || total == 0 {
        return Ok(());
    }
    *reported = done;
    callback.call1((done, total)).map(|_| ())
}
