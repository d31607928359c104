//! The shape of each data class (POSIX reads, POSIX writes, STDIO reads, STDIO writes): whether
//! its time goes to the number of calls (a fixed cost per call: op-count-bound) or to the bytes
//! (a cost per byte: bandwidth-bound). The optimisation pipeline asks this first, because the
//! levers differ: coalescing and batching for the first, striping, buffering and read-ahead for
//! the second. Decided from every call of the class by a least-squares fit of call time to a
//! fixed cost plus a per-byte cost (sums only: memory does not grow with calls); when the calls
//! all move about the same size the fit cannot separate the two, and the mean size decides
//! (under 64 KiB: op-count-bound; at least 1 MiB: bandwidth-bound), which the output says.

/// Running sums of one class.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ShapeSums {
    calls: f64,
    bytes: f64,
    time: f64,
    bytes_time: f64,
    bytes_squared: f64,
    small_time: f64,
    small_calls: f64,
    min_bytes: f64,
    max_bytes: f64,
}

/// Calls below this size count as small in [`Shape::small_time_share`].
pub const SMALL_CALL_BYTES: f64 = 4096.0;

impl ShapeSums {
    /// Adds one call of `bytes` that took `seconds`.
    pub fn add(&mut self, bytes: i64, seconds: f64) {
        let bytes = bytes.max(0) as f64;
        if self.calls == 0.0 {
            self.min_bytes = bytes;
            self.max_bytes = bytes;
        }
        self.calls += 1.0;
        self.bytes += bytes;
        self.time += seconds;
        self.bytes_time += bytes * seconds;
        self.bytes_squared += bytes * bytes;
        self.min_bytes = self.min_bytes.min(bytes);
        self.max_bytes = self.max_bytes.max(bytes);
        if bytes < SMALL_CALL_BYTES {
            self.small_time += seconds;
            self.small_calls += 1.0;
        }
    }

    /// The shape of the class named `class`, or `None` without calls or time.
    pub fn shape(&self, class: &str) -> Option<Shape> {
        if self.calls < 1.0 || self.time <= 0.0 {
            return None;
        }
        let n = self.calls;
        let mean_bytes = self.bytes / n;
        let mean_time = self.time / n;
        let variance = self.bytes_squared / n - mean_bytes * mean_bytes;
        // The sizes must spread by more than a tenth of the mean (or 1 KiB) for the fit to
        // separate a fixed cost from a per-byte one.
        let spread = self.max_bytes - self.min_bytes;
        let fitted = n >= 10.0 && variance > 0.0 && spread > (0.1 * mean_bytes).max(1024.0);
        let (fixed, per_byte, method) = if fitted {
            let covariance = self.bytes_time / n - mean_bytes * mean_time;
            let per_byte = (covariance / variance).max(0.0);
            let fixed = (mean_time - per_byte * mean_bytes).max(0.0);
            (fixed, per_byte, "fit")
        } else if mean_bytes > 0.0 {
            // One size: the whole time per call, attributed by the size rule below.
            (mean_time, mean_time / mean_bytes, "size")
        } else {
            (mean_time, 0.0, "size")
        };
        let fixed_share = if method == "fit" {
            (fixed * n / self.time).clamp(0.0, 1.0)
        } else if mean_bytes < 65_536.0 {
            1.0
        } else if mean_bytes >= 1_048_576.0 {
            0.0
        } else {
            0.5
        };
        let verdict = if fixed_share >= 0.6 {
            Verdict::OpCountBound
        } else if fixed_share <= 0.4 {
            Verdict::BandwidthBound
        } else {
            Verdict::Mixed
        };
        Some(Shape {
            class: class.to_string(),
            calls: n as u64,
            bytes: self.bytes as u64,
            time_s: self.time,
            mean_bytes,
            fixed_cost_s: fixed,
            bandwidth_bps: if per_byte > 0.0 { Some(1.0 / per_byte) } else { None },
            fixed_share,
            small_calls: self.small_calls as u64,
            small_time_share: self.small_time / self.time,
            verdict,
            method,
        })
    }
}

/// Op-count-bound, bandwidth-bound, or neither clearly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The fixed cost per call is at least 60 % of the time.
    OpCountBound,
    /// The per-byte cost is at least 60 % of the time.
    BandwidthBound,
    /// Between the two.
    Mixed,
}

impl Verdict {
    /// The verdict in words.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::OpCountBound => "op-count-bound",
            Verdict::BandwidthBound => "bandwidth-bound",
            Verdict::Mixed => "mixed",
        }
    }
}

/// The shape of one data class, with the numbers that decide it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Shape {
    /// `posix_read`, `posix_write`, `stdio_read` or `stdio_write`.
    pub class: String,
    /// Calls.
    pub calls: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Summed call time in seconds.
    pub time_s: f64,
    /// Mean bytes per call.
    pub mean_bytes: f64,
    /// The fixed cost per call, in seconds (fitted, or the mean call time by the size rule).
    pub fixed_cost_s: f64,
    /// The bandwidth the per-byte cost implies (bytes per second), when there is one.
    pub bandwidth_bps: Option<f64>,
    /// Share of the class's time that the fixed cost explains.
    pub fixed_share: f64,
    /// Calls under 4 KiB.
    pub small_calls: u64,
    /// Share of the class's time in calls under 4 KiB.
    pub small_time_share: f64,
    /// The decision.
    pub verdict: Verdict,
    /// `fit` (least squares over the calls) or `size` (one size: the mean size decides).
    pub method: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_cost_per_call_is_op_count_bound() {
        let mut sums = ShapeSums::default();
        for index in 0..1000_i64 {
            let bytes = 64 + (index % 8) * 512;
            // 10 us per call plus 1 GB/s.
            sums.add(bytes, 10e-6 + bytes as f64 / 1e9);
        }
        let Some(shape) = sums.shape("posix_write") else { panic!("no shape") };
        assert_eq!((shape.verdict, shape.method), (Verdict::OpCountBound, "fit"));
        assert!((shape.fixed_cost_s - 10e-6).abs() < 1e-9, "{shape:?}");
        assert!(shape.bandwidth_bps.is_some_and(|bps| (bps - 1e9).abs() / 1e9 < 1e-6), "{shape:?}");
    }

    #[test]
    fn large_transfers_at_a_bandwidth_are_bandwidth_bound() {
        let mut sums = ShapeSums::default();
        for index in 0..100_i64 {
            let bytes = (1 << 20) * (1 + index % 4);
            sums.add(bytes, 20e-6 + bytes as f64 / 5e8);
        }
        let Some(shape) = sums.shape("posix_read") else { panic!("no shape") };
        assert_eq!(shape.verdict, Verdict::BandwidthBound, "{shape:?}");
    }

    #[test]
    fn one_size_is_decided_by_the_size_and_says_so() {
        let mut sums = ShapeSums::default();
        for _ in 0..100 {
            sums.add(4096, 3e-6);
        }
        let Some(shape) = sums.shape("posix_read") else { panic!("no shape") };
        assert_eq!((shape.verdict, shape.method), (Verdict::OpCountBound, "size"));
        assert!(ShapeSums::default().shape("posix_read").is_none());
    }
}
