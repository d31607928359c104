//! A bounded sample of the POSIX reads and writes the replay resolved (time, process, file, the
//! offset the call reached and its bytes), for the report's offsets-over-time view. It sits
//! beside the replay ([`crate::fold::Replay`]): the replay knows each call's offset (from
//! `pread`/`pwrite` or the file position it tracks), so the sample shows what Darshan's DXT
//! segments would.
//!
//! # Method
//!
//! - **Uniform**: the calls with the smallest hash of (process, file, start, end, offset, bytes,
//!   and the call's ordinal in the replay), at most [`AccessSample::uniform_capacity`]: every
//!   call has the same chance (two identical calls, as a trace copied into another, are drawn
//!   apart), and the same trace gives the same sample.
//! - **Slowest**: the longest calls, at most [`AccessSample::slowest_capacity`], so the tail is
//!   shown even when the uniform sample misses it.
//! - **Durations**: every call's duration in a histogram of 64 bins per power of two, from
//!   which the 95th percentile is read (within 1.1 %): the calls at or above it are the slowest
//!   5 %.
//!
//! Memory is bounded by the two capacities, whatever the trace's size. Each sample is trimmed to
//! its capacity when it holds twice as many; from then on a call whose key is above the largest
//! kept is not held at all: at least a capacity of calls already seen have smaller keys, so it
//! could never be kept.

/// One read or write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    /// Start, microseconds in the trace's clock.
    pub start_us: i64,
    /// Duration in microseconds.
    pub duration_us: i64,
    /// The process.
    pub pid: i64,
    /// The file, an index into [`AccessSample::paths`] once finished (the replay's file index
    /// before).
    pub file: u32,
    /// The offset the call started at.
    pub offset: i64,
    /// Bytes moved.
    pub bytes: i64,
    /// A read (otherwise a write).
    pub read: bool,
    /// The sampling hash.
    hash: u64,
}

/// Bins per power of two of the duration histogram.
const BINS_PER_OCTAVE: f64 = 64.0;

/// The sample; see the module's documentation for the method.
#[derive(Clone, Debug, Default)]
pub struct AccessSample {
    /// Most calls kept uniformly.
    pub uniform_capacity: usize,
    /// Most of the slowest calls kept.
    pub slowest_capacity: usize,
    /// The uniform sample (sorted by start once finished).
    pub uniform: Vec<Access>,
    /// The slowest calls (sorted by start once finished).
    pub slowest: Vec<Access>,
    /// Calls seen.
    pub calls: u64,
    /// Durations: count per histogram bin, by bin (bin 0 holds calls under 1 µs; at most
    /// 4,033 bins, for durations up to 2^63 µs).
    durations: Vec<u64>,
    /// The paths of the files the kept calls name, once finished.
    pub paths: Vec<String>,
    /// The largest key the uniform sample kept when last trimmed (none before).
    uniform_bound: Option<(u64, u64)>,
    /// The largest key the slowest calls kept when last trimmed (none before).
    slowest_bound: Option<(u64, u64)>,
}

/// `SplitMix64`'s finaliser: a well-mixed 64-bit hash of `value`.
fn mix(mut value: u64) -> u64 {
    value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ (value >> 31)
}

/// The uniform sample keeps the calls of least hash.
fn uniform_key(access: &Access) -> (u64, u64) {
    (access.hash, 0)
}

/// The slowest calls: the longest first, then by hash.
fn slowest_key(access: &Access) -> (u64, u64) {
    (u64::MAX - access.duration_us as u64, access.hash)
}

impl AccessSample {
    /// An empty sample keeping at most `uniform` calls uniformly and the `slowest` longest.
    pub fn new(uniform: usize, slowest: usize) -> AccessSample {
        AccessSample { uniform_capacity: uniform, slowest_capacity: slowest, ..AccessSample::default() }
    }

    /// Adds one call (`file_hash` is mixed into the sampling hash for the file).
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        start_us: i64,
        end_us: i64,
        pid: i64,
        file: u32,
        file_hash: u64,
        offset: i64,
        bytes: i64,
        read: bool,
    ) {
        self.calls += 1;
        let ordinal = self.calls;
        let duration_us = end_us.saturating_sub(start_us).max(0);
        let mut hash = mix(pid as u64 ^ file_hash);
        for value in [start_us, end_us, offset, bytes, i64::from(read)] {
            hash = mix(hash ^ value as u64);
        }
        hash = mix(hash ^ ordinal);
        let access = Access { start_us, duration_us, pid, file, offset, bytes, read, hash };
        let bin = Self::bin_of(duration_us) as usize;
        if self.durations.len() <= bin {
            self.durations.resize(bin + 1, 0);
        }
        self.durations[bin] += 1;
        if self.uniform_capacity > 0 && self.uniform_bound.is_none_or(|bound| uniform_key(&access) <= bound) {
            self.uniform.push(access);
            if self.uniform.len() >= 2 * self.uniform_capacity {
                self.uniform_bound = Self::keep(&mut self.uniform, self.uniform_capacity, uniform_key);
            }
        }
        if self.slowest_capacity > 0 && self.slowest_bound.is_none_or(|bound| slowest_key(&access) <= bound) {
            self.slowest.push(access);
            if self.slowest.len() >= 2 * self.slowest_capacity {
                self.slowest_bound = Self::keep(&mut self.slowest, self.slowest_capacity, slowest_key);
            }
        }
    }

    /// Keeps the `capacity` accesses of least `key`, and returns the largest key kept (none
    /// when there were no more than `capacity`).
    fn keep(
        accesses: &mut Vec<Access>,
        capacity: usize,
        key: fn(&Access) -> (u64, u64),
    ) -> Option<(u64, u64)> {
        if accesses.len() <= capacity || capacity == 0 {
            return None;
        }
        let (_, largest, _) = accesses.select_nth_unstable_by(capacity - 1, |a, b| key(a).cmp(&key(b)));
        let bound = key(largest);
        accesses.truncate(capacity);
        Some(bound)
    }

    fn bin_of(duration_us: i64) -> u32 {
        if duration_us < 1 { 0 } else { 1 + ((duration_us as f64).log2() * BINS_PER_OCTAVE) as u32 }
    }

    /// The duration (µs) at or above which the slowest `share` of calls lie (the lower edge of
    /// the histogram bin holding that quantile); `None` with no calls.
    pub fn duration_quantile_us(&self, share: f64) -> Option<f64> {
        let total: u64 = self.durations.iter().sum();
        if total == 0 {
            return None;
        }
        let wanted = ((1.0 - share) * total as f64).floor() as u64;
        let mut seen = 0;
        for (bin, count) in (0u32..).zip(&self.durations).filter(|(_, count)| **count > 0) {
            seen += count;
            if seen > wanted {
                return Some(if bin == 0 { 0.0 } else { 2f64.powf(f64::from(bin - 1) / BINS_PER_OCTAVE) });
            }
        }
        None
    }

    /// Trims both samples to their capacities, sorts them by start, and renumbers files into
    /// [`AccessSample::paths`] from `paths` (the replay's paths by file index), in the order the
    /// sorted samples name them.
    pub fn finish(&mut self, paths: &[String]) {
        Self::keep(&mut self.uniform, self.uniform_capacity, uniform_key);
        Self::keep(&mut self.slowest, self.slowest_capacity, slowest_key);
        for accesses in [&mut self.uniform, &mut self.slowest] {
            accesses.sort_by_key(|access| (access.start_us, access.pid, access.hash));
        }
        // Files are numbered in the calls' order (not the order trimming left them in).
        let mut numbering = std::collections::HashMap::new();
        for access in self.uniform.iter_mut().chain(self.slowest.iter_mut()) {
            let next = numbering.len() as u32;
            let number = *numbering.entry(access.file).or_insert(next);
            if number == next {
                self.paths.push(paths.get(access.file as usize).cloned().unwrap_or_default());
            }
            access.file = number;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_is_bounded_uniform_repeatable_and_keeps_the_slowest() {
        let mut forward = AccessSample::new(100, 10);
        let mut again = AccessSample::new(100, 10);
        let calls: Vec<(i64, i64)> =
            (0..10_000).map(|index| (index * 10, 1 + (index * 7919) % 1000)).collect();
        for (start, duration) in &calls {
            forward.add(*start, start + duration, 1, 0, 7, start * 4096, 4096, true);
        }
        for (start, duration) in &calls {
            again.add(*start, start + duration, 1, 0, 7, start * 4096, 4096, true);
        }
        let paths = vec!["/data/a".to_string()];
        forward.finish(&paths);
        again.finish(&paths);
        assert_eq!(forward.uniform.len(), 100);
        assert_eq!(forward.uniform, again.uniform);
        assert_eq!(forward.slowest, again.slowest);
        assert!(forward.slowest.iter().all(|access| access.duration_us >= 991), "{:?}", forward.slowest);
        // Spread over the whole run, not bunched at one end.
        let late = forward.uniform.iter().filter(|access| access.start_us > 50_000).count();
        assert!((30..=70).contains(&late), "{late}");
        assert_eq!(forward.paths, paths);
        // Durations 1..=1000 µs, uniform: the 95th percentile is about 950 µs.
        let p95 = forward.duration_quantile_us(0.05).unwrap_or(0.0);
        assert!((935.0..=951.0).contains(&p95), "{p95}");
        assert_eq!(AccessSample::new(1, 1).duration_quantile_us(0.05), None);
    }

    #[test]
    fn the_sample_is_the_least_keys_of_all_calls() {
        // A model that keeps every call, then takes the least keys of all at once, against the
        // sample trimmed on the way (many times: 20,000 calls for capacities of 97 and 13).
        let (uniform, slowest) = (97, 13);
        let mut sample = AccessSample::new(uniform, slowest);
        let mut model = AccessSample::new(usize::MAX / 4, usize::MAX / 4);
        let mut state = 12_345_u64;
        for index in 0..20_000_i64 {
            state = mix(state);
            let start = index * 3 + (state % 50) as i64;
            let duration = (state >> 8) as i64 % 5_000;
            let (pid, file) = ((state >> 20) as i64 % 4, (state >> 24) as u32 % 3);
            let read = state & 1 == 0;
            for each in [&mut sample, &mut model] {
                each.add(start, start + duration, pid, file, u64::from(file), index * 4096, 4096, read);
            }
        }
        let paths: Vec<String> = (0..3).map(|file| format!("/data/{file}")).collect();
        sample.finish(&paths);
        let mut expected_uniform = model.uniform.clone();
        expected_uniform.sort_by_key(uniform_key);
        expected_uniform.truncate(uniform);
        let mut expected_slowest = model.slowest.clone();
        expected_slowest.sort_by_key(slowest_key);
        expected_slowest.truncate(slowest);
        for expected in [&mut expected_uniform, &mut expected_slowest] {
            expected.sort_by_key(|access| (access.start_us, access.pid, access.hash));
        }
        let unnumbered = |accesses: &[Access]| -> Vec<(i64, i64, u64)> {
            accesses.iter().map(|access| (access.start_us, access.duration_us, access.hash)).collect()
        };
        assert_eq!(unnumbered(&sample.uniform), unnumbered(&expected_uniform));
        assert_eq!(unnumbered(&sample.slowest), unnumbered(&expected_slowest));
        assert_eq!(sample.calls, 20_000);
    }

    #[test]
    fn identical_calls_are_drawn_apart() {
        // One call repeated: a sample of 10 holds 10 of them, not all or none.
        let mut sample = AccessSample::new(10, 0);
        for _ in 0..1000 {
            sample.add(5, 9, 1, 0, 7, 0, 4096, true);
        }
        sample.finish(&["/data/a".to_string()]);
        assert_eq!(sample.uniform.len(), 10);
        let mut distinct = sample.uniform.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), 10, "each kept call is its own");
    }
}
