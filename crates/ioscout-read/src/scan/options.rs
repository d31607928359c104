//! The settings of a scan ([`ScanOptions`]): worker threads (at most [`max_threads`]), unit size,
//! the line length limit, how many problems are kept, progress, cancellation, and the split
//! path's part size.

/// Settings of a scan.
#[derive(Clone, Debug)]
pub struct ScanOptions {
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Target compressed bytes per unit of work.
    pub unit_bytes: u64,
    /// Lines longer than this are invalid and not buffered.
    pub max_line_bytes: usize,
    /// Problems kept per file with full detail (all are counted).
    pub max_reported_problems: usize,
    /// Told the stored bytes of every unit or chunk as it is merged (for progress bars).
    pub progress: Option<Progress>,
    /// Asked between units whether to stop: once [`Cancel::cancel`] is called the scan decodes
    /// no further unit and ends as if its consumer had stopped it ([`crate::ScanReport::stopped`]),
    /// within about one unit's decoding time (the Python package's Ctrl-C).
    pub cancel: Option<Cancel>,
    /// A gzip file that is one unit (one member, or few large ones) and at least
    /// `part_bytes / 16` bytes long is inflated by one thread while the other workers parse its
    /// output in parts of about this many decompressed bytes (0: never).
    pub part_bytes: usize,
    /// Units per worker thread decoded ahead of the ordered merge (8 by default; at least 2),
    /// and the windows' byte budget when the scan decodes in windows (without a pool of its own).
    /// Folds that hold much per event (the replayed calls of the derived Darshan records) ask
    /// for fewer, which bounds the memory of the folds in flight.
    pub window_units_per_thread: u64,
}

/// The most worker threads a scan starts: four per core. More only adds switching (10,000
/// threads took 101 s on a 24k-event trace that 16 read in 0.02 s).
pub fn max_threads() -> usize {
    4 * std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

impl ScanOptions {
    /// The worker threads this scan uses: [`ScanOptions::threads`] (0: all cores), at most
    /// [`max_threads`].
    pub fn worker_threads(&self) -> usize {
        if self.threads == 0 { rayon::current_num_threads() } else { self.threads.min(max_threads()) }
    }
}

/// A progress callback: receives stored (compressed) bytes done.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(u64) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("Progress")
    }
}

/// A flag another thread sets to stop a scan early ([`ScanOptions::cancel`]).
#[derive(Clone, Debug, Default)]
pub struct Cancel(std::sync::Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    /// Asks every scan holding this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl ScanOptions {
    /// Whether the scan was asked to stop ([`ScanOptions::cancel`]).
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(Cancel::is_cancelled)
    }
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            threads: 0,
            unit_bytes: 4 << 20,
            max_line_bytes: 1 << 20,
            max_reported_problems: 20,
            progress: None,
            cancel: None,
            part_bytes: 4 << 20,
            window_units_per_thread: 8,
        }
    }
}
