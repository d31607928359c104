//! Counter names of each Darshan module at its current record version, in record order, and a
//! typed constant per counter ([`Counter`], [`FloatCounter`]) that every stage reads counters by.
//!
//! These are the names Darshan's own tools print (`darshan-parser`, PyDarshan); they are
//! the identifiers of the format (darshan-hpc/darshan 3.5.0, `include/darshan-*-log-format.h`),
//! listed here as data. The reader up-converts older record versions to these layouts.

use crate::module::id;

/// An integer counter of a module: which module, and its place in the module's records
/// ([`crate::CounterRecord::counters`]). Every counter the reader knows is a constant of this
/// module named as Darshan names it (`POSIX_WRITES`), so a misspelt counter does not compile
/// (a name looked up at run time read as 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Counter {
    module: usize,
    index: usize,
}

/// A floating-point counter of a module ([`crate::CounterRecord::fcounters`]), as [`Counter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FloatCounter {
    module: usize,
    index: usize,
}

impl Counter {
    const fn new(module: usize, index: usize) -> Counter {
        Counter { module, index }
    }

    /// The module's id ([`crate::module::id`]).
    pub const fn module(self) -> usize {
        self.module
    }

    /// Its place in a record of the module.
    pub const fn index(self) -> usize {
        self.index
    }

    /// Its name, as Darshan's tools print it.
    pub fn name(self) -> &'static str {
        crate::module::counter_names(self.module)
            .and_then(|(names, _)| names.get(self.index))
            .copied()
            .unwrap_or("")
    }

    /// Its value in `record`, a record of its module (0 for a record too short to hold it).
    pub fn of(self, record: &crate::CounterRecord) -> i64 {
        record.counters.get(self.index).copied().unwrap_or(0)
    }
}

impl FloatCounter {
    const fn new(module: usize, index: usize) -> FloatCounter {
        FloatCounter { module, index }
    }

    /// The module's id ([`crate::module::id`]).
    pub const fn module(self) -> usize {
        self.module
    }

    /// Its place in a record of the module.
    pub const fn index(self) -> usize {
        self.index
    }

    /// Its name, as Darshan's tools print it.
    pub fn name(self) -> &'static str {
        crate::module::counter_names(self.module)
            .and_then(|(_, names)| names.get(self.index))
            .copied()
            .unwrap_or("")
    }

    /// Its value in `record`, a record of its module (0 for a record too short to hold it).
    pub fn of(self, record: &crate::CounterRecord) -> f64 {
        record.fcounters.get(self.index).copied().unwrap_or(0.0)
    }
}

/// A module's counters in record order: the list of names, and one typed constant per counter
/// (its place counted by a private enum of the same names).
macro_rules! counters {
    ($(#[$doc:meta])* $names:ident: $kind:ident of $module:expr, $index:ident { $($name:ident),* $(,)? }) => {
        $(#[$doc])*
        pub const $names: &[&str] = &[$(stringify!($name)),*];

        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[repr(usize)]
        enum $index {
            $($name),*
        }

        $(
            #[doc = concat!("`", stringify!($name), "`.")]
            pub const $name: $kind = $kind::new($module, $index::$name as usize);
        )*
    };
}

counters! {
    /// `POSIX` integer counters.
    POSIX_NAMES: Counter of id::POSIX, PosixNamesIndex {
        POSIX_OPENS,
        POSIX_FILENOS,
        POSIX_DUPS,
        POSIX_READS,
        POSIX_WRITES,
        POSIX_SEEKS,
        POSIX_STATS,
        POSIX_MMAPS,
        POSIX_FSYNCS,
        POSIX_FDSYNCS,
        POSIX_RENAME_SOURCES,
        POSIX_RENAME_TARGETS,
        POSIX_RENAMED_FROM,
        POSIX_MODE,
        POSIX_BYTES_READ,
        POSIX_BYTES_WRITTEN,
        POSIX_MAX_BYTE_READ,
        POSIX_MAX_BYTE_WRITTEN,
        POSIX_CONSEC_READS,
        POSIX_CONSEC_WRITES,
        POSIX_SEQ_READS,
        POSIX_SEQ_WRITES,
        POSIX_RW_SWITCHES,
        POSIX_MEM_NOT_ALIGNED,
        POSIX_MEM_ALIGNMENT,
        POSIX_FILE_NOT_ALIGNED,
        POSIX_FILE_ALIGNMENT,
        POSIX_MAX_READ_TIME_SIZE,
        POSIX_MAX_WRITE_TIME_SIZE,
        POSIX_SIZE_READ_0_100,
        POSIX_SIZE_READ_100_1K,
        POSIX_SIZE_READ_1K_10K,
        POSIX_SIZE_READ_10K_100K,
        POSIX_SIZE_READ_100K_1M,
        POSIX_SIZE_READ_1M_4M,
        POSIX_SIZE_READ_4M_10M,
        POSIX_SIZE_READ_10M_100M,
        POSIX_SIZE_READ_100M_1G,
        POSIX_SIZE_READ_1G_PLUS,
        POSIX_SIZE_WRITE_0_100,
        POSIX_SIZE_WRITE_100_1K,
        POSIX_SIZE_WRITE_1K_10K,
        POSIX_SIZE_WRITE_10K_100K,
        POSIX_SIZE_WRITE_100K_1M,
        POSIX_SIZE_WRITE_1M_4M,
        POSIX_SIZE_WRITE_4M_10M,
        POSIX_SIZE_WRITE_10M_100M,
        POSIX_SIZE_WRITE_100M_1G,
        POSIX_SIZE_WRITE_1G_PLUS,
        POSIX_STRIDE1_STRIDE,
        POSIX_STRIDE2_STRIDE,
        POSIX_STRIDE3_STRIDE,
        POSIX_STRIDE4_STRIDE,
        POSIX_STRIDE1_COUNT,
        POSIX_STRIDE2_COUNT,
        POSIX_STRIDE3_COUNT,
        POSIX_STRIDE4_COUNT,
        POSIX_ACCESS1_ACCESS,
        POSIX_ACCESS2_ACCESS,
        POSIX_ACCESS3_ACCESS,
        POSIX_ACCESS4_ACCESS,
        POSIX_ACCESS1_COUNT,
        POSIX_ACCESS2_COUNT,
        POSIX_ACCESS3_COUNT,
        POSIX_ACCESS4_COUNT,
        POSIX_FASTEST_RANK,
        POSIX_FASTEST_RANK_BYTES,
        POSIX_SLOWEST_RANK,
        POSIX_SLOWEST_RANK_BYTES,
    }
}

counters! {
    /// `POSIX` floating-point counters.
    POSIX_F_NAMES: FloatCounter of id::POSIX, PosixFNamesIndex {
        POSIX_F_OPEN_START_TIMESTAMP,
        POSIX_F_READ_START_TIMESTAMP,
        POSIX_F_WRITE_START_TIMESTAMP,
        POSIX_F_CLOSE_START_TIMESTAMP,
        POSIX_F_OPEN_END_TIMESTAMP,
        POSIX_F_READ_END_TIMESTAMP,
        POSIX_F_WRITE_END_TIMESTAMP,
        POSIX_F_CLOSE_END_TIMESTAMP,
        POSIX_F_READ_TIME,
        POSIX_F_WRITE_TIME,
        POSIX_F_META_TIME,
        POSIX_F_MAX_READ_TIME,
        POSIX_F_MAX_WRITE_TIME,
        POSIX_F_FASTEST_RANK_TIME,
        POSIX_F_SLOWEST_RANK_TIME,
        POSIX_F_VARIANCE_RANK_TIME,
        POSIX_F_VARIANCE_RANK_BYTES,
    }
}

/// The POSIX read-size bins, smallest first (0-100 bytes up to 1 GiB and more).
pub const POSIX_SIZE_READ_BINS: [Counter; 10] = [
    POSIX_SIZE_READ_0_100,
    POSIX_SIZE_READ_100_1K,
    POSIX_SIZE_READ_1K_10K,
    POSIX_SIZE_READ_10K_100K,
    POSIX_SIZE_READ_100K_1M,
    POSIX_SIZE_READ_1M_4M,
    POSIX_SIZE_READ_4M_10M,
    POSIX_SIZE_READ_10M_100M,
    POSIX_SIZE_READ_100M_1G,
    POSIX_SIZE_READ_1G_PLUS,
];

/// The POSIX write-size bins, smallest first.
pub const POSIX_SIZE_WRITE_BINS: [Counter; 10] = [
    POSIX_SIZE_WRITE_0_100,
    POSIX_SIZE_WRITE_100_1K,
    POSIX_SIZE_WRITE_1K_10K,
    POSIX_SIZE_WRITE_10K_100K,
    POSIX_SIZE_WRITE_100K_1M,
    POSIX_SIZE_WRITE_1M_4M,
    POSIX_SIZE_WRITE_4M_10M,
    POSIX_SIZE_WRITE_10M_100M,
    POSIX_SIZE_WRITE_100M_1G,
    POSIX_SIZE_WRITE_1G_PLUS,
];

/// How many of the size bins hold requests under 1 MiB (the "small" requests of Drishti's rules).
pub const SMALL_SIZE_BINS: usize = 5;

/// The four most common POSIX access sizes of a record: (size, count) in Darshan's slot order.
pub const POSIX_ACCESSES: [(Counter, Counter); 4] = [
    (POSIX_ACCESS1_ACCESS, POSIX_ACCESS1_COUNT),
    (POSIX_ACCESS2_ACCESS, POSIX_ACCESS2_COUNT),
    (POSIX_ACCESS3_ACCESS, POSIX_ACCESS3_COUNT),
    (POSIX_ACCESS4_ACCESS, POSIX_ACCESS4_COUNT),
];

counters! {
    /// `MPIIO` integer counters.
    MPIIO_NAMES: Counter of id::MPIIO, MpiioNamesIndex {
        MPIIO_INDEP_OPENS,
        MPIIO_COLL_OPENS,
        MPIIO_INDEP_READS,
        MPIIO_INDEP_WRITES,
        MPIIO_COLL_READS,
        MPIIO_COLL_WRITES,
        MPIIO_SPLIT_READS,
        MPIIO_SPLIT_WRITES,
        MPIIO_NB_READS,
        MPIIO_NB_WRITES,
        MPIIO_SYNCS,
        MPIIO_HINTS,
        MPIIO_VIEWS,
        MPIIO_MODE,
        MPIIO_BYTES_READ,
        MPIIO_BYTES_WRITTEN,
        MPIIO_RW_SWITCHES,
        MPIIO_MAX_READ_TIME_SIZE,
        MPIIO_MAX_WRITE_TIME_SIZE,
        MPIIO_SIZE_READ_AGG_0_100,
        MPIIO_SIZE_READ_AGG_100_1K,
        MPIIO_SIZE_READ_AGG_1K_10K,
        MPIIO_SIZE_READ_AGG_10K_100K,
        MPIIO_SIZE_READ_AGG_100K_1M,
        MPIIO_SIZE_READ_AGG_1M_4M,
        MPIIO_SIZE_READ_AGG_4M_10M,
        MPIIO_SIZE_READ_AGG_10M_100M,
        MPIIO_SIZE_READ_AGG_100M_1G,
        MPIIO_SIZE_READ_AGG_1G_PLUS,
        MPIIO_SIZE_WRITE_AGG_0_100,
        MPIIO_SIZE_WRITE_AGG_100_1K,
        MPIIO_SIZE_WRITE_AGG_1K_10K,
        MPIIO_SIZE_WRITE_AGG_10K_100K,
        MPIIO_SIZE_WRITE_AGG_100K_1M,
        MPIIO_SIZE_WRITE_AGG_1M_4M,
        MPIIO_SIZE_WRITE_AGG_4M_10M,
        MPIIO_SIZE_WRITE_AGG_10M_100M,
        MPIIO_SIZE_WRITE_AGG_100M_1G,
        MPIIO_SIZE_WRITE_AGG_1G_PLUS,
        MPIIO_ACCESS1_ACCESS,
        MPIIO_ACCESS2_ACCESS,
        MPIIO_ACCESS3_ACCESS,
        MPIIO_ACCESS4_ACCESS,
        MPIIO_ACCESS1_COUNT,
        MPIIO_ACCESS2_COUNT,
        MPIIO_ACCESS3_COUNT,
        MPIIO_ACCESS4_COUNT,
        MPIIO_FASTEST_RANK,
        MPIIO_FASTEST_RANK_BYTES,
        MPIIO_SLOWEST_RANK,
        MPIIO_SLOWEST_RANK_BYTES,
    }
}

counters! {
    /// `MPIIO` floating-point counters.
    MPIIO_F_NAMES: FloatCounter of id::MPIIO, MpiioFNamesIndex {
        MPIIO_F_OPEN_START_TIMESTAMP,
        MPIIO_F_READ_START_TIMESTAMP,
        MPIIO_F_WRITE_START_TIMESTAMP,
        MPIIO_F_CLOSE_START_TIMESTAMP,
        MPIIO_F_OPEN_END_TIMESTAMP,
        MPIIO_F_READ_END_TIMESTAMP,
        MPIIO_F_WRITE_END_TIMESTAMP,
        MPIIO_F_CLOSE_END_TIMESTAMP,
        MPIIO_F_READ_TIME,
        MPIIO_F_WRITE_TIME,
        MPIIO_F_META_TIME,
        MPIIO_F_MAX_READ_TIME,
        MPIIO_F_MAX_WRITE_TIME,
        MPIIO_F_FASTEST_RANK_TIME,
        MPIIO_F_SLOWEST_RANK_TIME,
        MPIIO_F_VARIANCE_RANK_TIME,
        MPIIO_F_VARIANCE_RANK_BYTES,
    }
}

counters! {
    /// `STDIO` integer counters.
    STDIO_NAMES: Counter of id::STDIO, StdioNamesIndex {
        STDIO_OPENS,
        STDIO_FDOPENS,
        STDIO_READS,
        STDIO_WRITES,
        STDIO_SEEKS,
        STDIO_FLUSHES,
        STDIO_BYTES_WRITTEN,
        STDIO_BYTES_READ,
        STDIO_MAX_BYTE_READ,
        STDIO_MAX_BYTE_WRITTEN,
        STDIO_FASTEST_RANK,
        STDIO_FASTEST_RANK_BYTES,
        STDIO_SLOWEST_RANK,
        STDIO_SLOWEST_RANK_BYTES,
    }
}

counters! {
    /// `STDIO` floating-point counters.
    STDIO_F_NAMES: FloatCounter of id::STDIO, StdioFNamesIndex {
        STDIO_F_META_TIME,
        STDIO_F_WRITE_TIME,
        STDIO_F_READ_TIME,
        STDIO_F_OPEN_START_TIMESTAMP,
        STDIO_F_CLOSE_START_TIMESTAMP,
        STDIO_F_WRITE_START_TIMESTAMP,
        STDIO_F_READ_START_TIMESTAMP,
        STDIO_F_OPEN_END_TIMESTAMP,
        STDIO_F_CLOSE_END_TIMESTAMP,
        STDIO_F_WRITE_END_TIMESTAMP,
        STDIO_F_READ_END_TIMESTAMP,
        STDIO_F_FASTEST_RANK_TIME,
        STDIO_F_SLOWEST_RANK_TIME,
        STDIO_F_VARIANCE_RANK_TIME,
        STDIO_F_VARIANCE_RANK_BYTES,
    }
}

counters! {
    /// `H5F` integer counters.
    H5F_NAMES: Counter of id::H5F, H5fNamesIndex {
        H5F_OPENS,
        H5F_FLUSHES,
        H5F_USE_MPIIO,
    }
}

counters! {
    /// `H5F` floating-point counters.
    H5F_F_NAMES: FloatCounter of id::H5F, H5fFNamesIndex {
        H5F_F_OPEN_START_TIMESTAMP,
        H5F_F_CLOSE_START_TIMESTAMP,
        H5F_F_OPEN_END_TIMESTAMP,
        H5F_F_CLOSE_END_TIMESTAMP,
        H5F_F_META_TIME,
    }
}

counters! {
    /// `H5D` integer counters.
    H5D_NAMES: Counter of id::H5D, H5dNamesIndex {
        H5D_OPENS,
        H5D_READS,
        H5D_WRITES,
        H5D_FLUSHES,
        H5D_BYTES_READ,
        H5D_BYTES_WRITTEN,
        H5D_RW_SWITCHES,
        H5D_REGULAR_HYPERSLAB_SELECTS,
        H5D_IRREGULAR_HYPERSLAB_SELECTS,
        H5D_POINT_SELECTS,
        H5D_MAX_READ_TIME_SIZE,
        H5D_MAX_WRITE_TIME_SIZE,
        H5D_SIZE_READ_AGG_0_100,
        H5D_SIZE_READ_AGG_100_1K,
        H5D_SIZE_READ_AGG_1K_10K,
        H5D_SIZE_READ_AGG_10K_100K,
        H5D_SIZE_READ_AGG_100K_1M,
        H5D_SIZE_READ_AGG_1M_4M,
        H5D_SIZE_READ_AGG_4M_10M,
        H5D_SIZE_READ_AGG_10M_100M,
        H5D_SIZE_READ_AGG_100M_1G,
        H5D_SIZE_READ_AGG_1G_PLUS,
        H5D_SIZE_WRITE_AGG_0_100,
        H5D_SIZE_WRITE_AGG_100_1K,
        H5D_SIZE_WRITE_AGG_1K_10K,
        H5D_SIZE_WRITE_AGG_10K_100K,
        H5D_SIZE_WRITE_AGG_100K_1M,
        H5D_SIZE_WRITE_AGG_1M_4M,
        H5D_SIZE_WRITE_AGG_4M_10M,
        H5D_SIZE_WRITE_AGG_10M_100M,
        H5D_SIZE_WRITE_AGG_100M_1G,
        H5D_SIZE_WRITE_AGG_1G_PLUS,
        H5D_ACCESS1_ACCESS,
        H5D_ACCESS1_LENGTH_D1,
        H5D_ACCESS1_LENGTH_D2,
        H5D_ACCESS1_LENGTH_D3,
        H5D_ACCESS1_LENGTH_D4,
        H5D_ACCESS1_LENGTH_D5,
        H5D_ACCESS1_STRIDE_D1,
        H5D_ACCESS1_STRIDE_D2,
        H5D_ACCESS1_STRIDE_D3,
        H5D_ACCESS1_STRIDE_D4,
        H5D_ACCESS1_STRIDE_D5,
        H5D_ACCESS2_ACCESS,
        H5D_ACCESS2_LENGTH_D1,
        H5D_ACCESS2_LENGTH_D2,
        H5D_ACCESS2_LENGTH_D3,
        H5D_ACCESS2_LENGTH_D4,
        H5D_ACCESS2_LENGTH_D5,
        H5D_ACCESS2_STRIDE_D1,
        H5D_ACCESS2_STRIDE_D2,
        H5D_ACCESS2_STRIDE_D3,
        H5D_ACCESS2_STRIDE_D4,
        H5D_ACCESS2_STRIDE_D5,
        H5D_ACCESS3_ACCESS,
        H5D_ACCESS3_LENGTH_D1,
        H5D_ACCESS3_LENGTH_D2,
        H5D_ACCESS3_LENGTH_D3,
        H5D_ACCESS3_LENGTH_D4,
        H5D_ACCESS3_LENGTH_D5,
        H5D_ACCESS3_STRIDE_D1,
        H5D_ACCESS3_STRIDE_D2,
        H5D_ACCESS3_STRIDE_D3,
        H5D_ACCESS3_STRIDE_D4,
        H5D_ACCESS3_STRIDE_D5,
        H5D_ACCESS4_ACCESS,
        H5D_ACCESS4_LENGTH_D1,
        H5D_ACCESS4_LENGTH_D2,
        H5D_ACCESS4_LENGTH_D3,
        H5D_ACCESS4_LENGTH_D4,
        H5D_ACCESS4_LENGTH_D5,
        H5D_ACCESS4_STRIDE_D1,
        H5D_ACCESS4_STRIDE_D2,
        H5D_ACCESS4_STRIDE_D3,
        H5D_ACCESS4_STRIDE_D4,
        H5D_ACCESS4_STRIDE_D5,
        H5D_ACCESS1_COUNT,
        H5D_ACCESS2_COUNT,
        H5D_ACCESS3_COUNT,
        H5D_ACCESS4_COUNT,
        H5D_DATASPACE_NDIMS,
        H5D_DATASPACE_NPOINTS,
        H5D_DATATYPE_SIZE,
        H5D_CHUNK_SIZE_D1,
        H5D_CHUNK_SIZE_D2,
        H5D_CHUNK_SIZE_D3,
        H5D_CHUNK_SIZE_D4,
        H5D_CHUNK_SIZE_D5,
        H5D_USE_MPIIO_COLLECTIVE,
        H5D_USE_DEPRECATED,
        H5D_FASTEST_RANK,
        H5D_FASTEST_RANK_BYTES,
        H5D_SLOWEST_RANK,
        H5D_SLOWEST_RANK_BYTES,
    }
}

counters! {
    /// `H5D` floating-point counters.
    H5D_F_NAMES: FloatCounter of id::H5D, H5dFNamesIndex {
        H5D_F_OPEN_START_TIMESTAMP,
        H5D_F_READ_START_TIMESTAMP,
        H5D_F_WRITE_START_TIMESTAMP,
        H5D_F_CLOSE_START_TIMESTAMP,
        H5D_F_OPEN_END_TIMESTAMP,
        H5D_F_READ_END_TIMESTAMP,
        H5D_F_WRITE_END_TIMESTAMP,
        H5D_F_CLOSE_END_TIMESTAMP,
        H5D_F_READ_TIME,
        H5D_F_WRITE_TIME,
        H5D_F_META_TIME,
        H5D_F_MAX_READ_TIME,
        H5D_F_MAX_WRITE_TIME,
        H5D_F_FASTEST_RANK_TIME,
        H5D_F_SLOWEST_RANK_TIME,
        H5D_F_VARIANCE_RANK_TIME,
        H5D_F_VARIANCE_RANK_BYTES,
    }
}

counters! {
    /// `PNETCDF_FILE` integer counters.
    PNETCDF_FILE_NAMES: Counter of id::PNETCDF_FILE, PnetcdfFileNamesIndex {
        PNETCDF_FILE_CREATES,
        PNETCDF_FILE_OPENS,
        PNETCDF_FILE_REDEFS,
        PNETCDF_FILE_INDEP_WAITS,
        PNETCDF_FILE_COLL_WAITS,
        PNETCDF_FILE_SYNCS,
        PNETCDF_FILE_BYTES_READ,
        PNETCDF_FILE_BYTES_WRITTEN,
        PNETCDF_FILE_WAIT_FAILURES,
    }
}

counters! {
    /// `PNETCDF_FILE` floating-point counters.
    PNETCDF_FILE_F_NAMES: FloatCounter of id::PNETCDF_FILE, PnetcdfFileFNamesIndex {
        PNETCDF_FILE_F_OPEN_START_TIMESTAMP,
        PNETCDF_FILE_F_CLOSE_START_TIMESTAMP,
        PNETCDF_FILE_F_WAIT_START_TIMESTAMP,
        PNETCDF_FILE_F_OPEN_END_TIMESTAMP,
        PNETCDF_FILE_F_CLOSE_END_TIMESTAMP,
        PNETCDF_FILE_F_WAIT_END_TIMESTAMP,
        PNETCDF_FILE_F_META_TIME,
        PNETCDF_FILE_F_WAIT_TIME,
    }
}

counters! {
    /// `PNETCDF_VAR` integer counters.
    PNETCDF_VAR_NAMES: Counter of id::PNETCDF_VAR, PnetcdfVarNamesIndex {
        PNETCDF_VAR_OPENS,
        PNETCDF_VAR_INDEP_READS,
        PNETCDF_VAR_INDEP_WRITES,
        PNETCDF_VAR_COLL_READS,
        PNETCDF_VAR_COLL_WRITES,
        PNETCDF_VAR_NB_READS,
        PNETCDF_VAR_NB_WRITES,
        PNETCDF_VAR_BYTES_READ,
        PNETCDF_VAR_BYTES_WRITTEN,
        PNETCDF_VAR_RW_SWITCHES,
        PNETCDF_VAR_PUT_VAR,
        PNETCDF_VAR_PUT_VAR1,
        PNETCDF_VAR_PUT_VARA,
        PNETCDF_VAR_PUT_VARS,
        PNETCDF_VAR_PUT_VARM,
        PNETCDF_VAR_PUT_VARN,
        PNETCDF_VAR_PUT_VARD,
        PNETCDF_VAR_GET_VAR,
        PNETCDF_VAR_GET_VAR1,
        PNETCDF_VAR_GET_VARA,
        PNETCDF_VAR_GET_VARS,
        PNETCDF_VAR_GET_VARM,
        PNETCDF_VAR_GET_VARN,
        PNETCDF_VAR_GET_VARD,
        PNETCDF_VAR_IPUT_VAR,
        PNETCDF_VAR_IPUT_VAR1,
        PNETCDF_VAR_IPUT_VARA,
        PNETCDF_VAR_IPUT_VARS,
        PNETCDF_VAR_IPUT_VARM,
        PNETCDF_VAR_IPUT_VARN,
        PNETCDF_VAR_IGET_VAR,
        PNETCDF_VAR_IGET_VAR1,
        PNETCDF_VAR_IGET_VARA,
        PNETCDF_VAR_IGET_VARS,
        PNETCDF_VAR_IGET_VARM,
        PNETCDF_VAR_IGET_VARN,
        PNETCDF_VAR_BPUT_VAR,
        PNETCDF_VAR_BPUT_VAR1,
        PNETCDF_VAR_BPUT_VARA,
        PNETCDF_VAR_BPUT_VARS,
        PNETCDF_VAR_BPUT_VARM,
        PNETCDF_VAR_BPUT_VARN,
        PNETCDF_VAR_MAX_READ_TIME_SIZE,
        PNETCDF_VAR_MAX_WRITE_TIME_SIZE,
        PNETCDF_VAR_SIZE_READ_AGG_0_100,
        PNETCDF_VAR_SIZE_READ_AGG_100_1K,
        PNETCDF_VAR_SIZE_READ_AGG_1K_10K,
        PNETCDF_VAR_SIZE_READ_AGG_10K_100K,
        PNETCDF_VAR_SIZE_READ_AGG_100K_1M,
        PNETCDF_VAR_SIZE_READ_AGG_1M_4M,
        PNETCDF_VAR_SIZE_READ_AGG_4M_10M,
        PNETCDF_VAR_SIZE_READ_AGG_10M_100M,
        PNETCDF_VAR_SIZE_READ_AGG_100M_1G,
        PNETCDF_VAR_SIZE_READ_AGG_1G_PLUS,
        PNETCDF_VAR_SIZE_WRITE_AGG_0_100,
        PNETCDF_VAR_SIZE_WRITE_AGG_100_1K,
        PNETCDF_VAR_SIZE_WRITE_AGG_1K_10K,
        PNETCDF_VAR_SIZE_WRITE_AGG_10K_100K,
        PNETCDF_VAR_SIZE_WRITE_AGG_100K_1M,
        PNETCDF_VAR_SIZE_WRITE_AGG_1M_4M,
        PNETCDF_VAR_SIZE_WRITE_AGG_4M_10M,
        PNETCDF_VAR_SIZE_WRITE_AGG_10M_100M,
        PNETCDF_VAR_SIZE_WRITE_AGG_100M_1G,
        PNETCDF_VAR_SIZE_WRITE_AGG_1G_PLUS,
        PNETCDF_VAR_ACCESS1_ACCESS,
        PNETCDF_VAR_ACCESS1_LENGTH_D1,
        PNETCDF_VAR_ACCESS1_LENGTH_D2,
        PNETCDF_VAR_ACCESS1_LENGTH_D3,
        PNETCDF_VAR_ACCESS1_LENGTH_D4,
        PNETCDF_VAR_ACCESS1_LENGTH_D5,
        PNETCDF_VAR_ACCESS1_STRIDE_D1,
        PNETCDF_VAR_ACCESS1_STRIDE_D2,
        PNETCDF_VAR_ACCESS1_STRIDE_D3,
        PNETCDF_VAR_ACCESS1_STRIDE_D4,
        PNETCDF_VAR_ACCESS1_STRIDE_D5,
        PNETCDF_VAR_ACCESS2_ACCESS,
        PNETCDF_VAR_ACCESS2_LENGTH_D1,
        PNETCDF_VAR_ACCESS2_LENGTH_D2,
        PNETCDF_VAR_ACCESS2_LENGTH_D3,
        PNETCDF_VAR_ACCESS2_LENGTH_D4,
        PNETCDF_VAR_ACCESS2_LENGTH_D5,
        PNETCDF_VAR_ACCESS2_STRIDE_D1,
        PNETCDF_VAR_ACCESS2_STRIDE_D2,
        PNETCDF_VAR_ACCESS2_STRIDE_D3,
        PNETCDF_VAR_ACCESS2_STRIDE_D4,
        PNETCDF_VAR_ACCESS2_STRIDE_D5,
        PNETCDF_VAR_ACCESS3_ACCESS,
        PNETCDF_VAR_ACCESS3_LENGTH_D1,
        PNETCDF_VAR_ACCESS3_LENGTH_D2,
        PNETCDF_VAR_ACCESS3_LENGTH_D3,
        PNETCDF_VAR_ACCESS3_LENGTH_D4,
        PNETCDF_VAR_ACCESS3_LENGTH_D5,
        PNETCDF_VAR_ACCESS3_STRIDE_D1,
        PNETCDF_VAR_ACCESS3_STRIDE_D2,
        PNETCDF_VAR_ACCESS3_STRIDE_D3,
        PNETCDF_VAR_ACCESS3_STRIDE_D4,
        PNETCDF_VAR_ACCESS3_STRIDE_D5,
        PNETCDF_VAR_ACCESS4_ACCESS,
        PNETCDF_VAR_ACCESS4_LENGTH_D1,
        PNETCDF_VAR_ACCESS4_LENGTH_D2,
        PNETCDF_VAR_ACCESS4_LENGTH_D3,
        PNETCDF_VAR_ACCESS4_LENGTH_D4,
        PNETCDF_VAR_ACCESS4_LENGTH_D5,
        PNETCDF_VAR_ACCESS4_STRIDE_D1,
        PNETCDF_VAR_ACCESS4_STRIDE_D2,
        PNETCDF_VAR_ACCESS4_STRIDE_D3,
        PNETCDF_VAR_ACCESS4_STRIDE_D4,
        PNETCDF_VAR_ACCESS4_STRIDE_D5,
        PNETCDF_VAR_ACCESS1_COUNT,
        PNETCDF_VAR_ACCESS2_COUNT,
        PNETCDF_VAR_ACCESS3_COUNT,
        PNETCDF_VAR_ACCESS4_COUNT,
        PNETCDF_VAR_NDIMS,
        PNETCDF_VAR_NPOINTS,
        PNETCDF_VAR_DATATYPE_SIZE,
        PNETCDF_VAR_IS_RECORD_VAR,
        PNETCDF_VAR_FASTEST_RANK,
        PNETCDF_VAR_FASTEST_RANK_BYTES,
        PNETCDF_VAR_SLOWEST_RANK,
        PNETCDF_VAR_SLOWEST_RANK_BYTES,
    }
}

counters! {
    /// `PNETCDF_VAR` floating-point counters.
    PNETCDF_VAR_F_NAMES: FloatCounter of id::PNETCDF_VAR, PnetcdfVarFNamesIndex {
        PNETCDF_VAR_F_OPEN_START_TIMESTAMP,
        PNETCDF_VAR_F_READ_START_TIMESTAMP,
        PNETCDF_VAR_F_WRITE_START_TIMESTAMP,
        PNETCDF_VAR_F_CLOSE_START_TIMESTAMP,
        PNETCDF_VAR_F_OPEN_END_TIMESTAMP,
        PNETCDF_VAR_F_READ_END_TIMESTAMP,
        PNETCDF_VAR_F_WRITE_END_TIMESTAMP,
        PNETCDF_VAR_F_CLOSE_END_TIMESTAMP,
        PNETCDF_VAR_F_READ_TIME,
        PNETCDF_VAR_F_WRITE_TIME,
        PNETCDF_VAR_F_META_TIME,
        PNETCDF_VAR_F_MAX_READ_TIME,
        PNETCDF_VAR_F_MAX_WRITE_TIME,
        PNETCDF_VAR_F_FASTEST_RANK_TIME,
        PNETCDF_VAR_F_SLOWEST_RANK_TIME,
        PNETCDF_VAR_F_VARIANCE_RANK_TIME,
        PNETCDF_VAR_F_VARIANCE_RANK_BYTES,
    }
}

counters! {
    /// `DFS` integer counters.
    DFS_NAMES: Counter of id::DFS, DfsNamesIndex {
        DFS_OPENS,
        DFS_GLOBAL_OPENS,
        DFS_LOOKUPS,
        DFS_DUPS,
        DFS_READS,
        DFS_READXS,
        DFS_WRITES,
        DFS_WRITEXS,
        DFS_NB_READS,
        DFS_NB_WRITES,
        DFS_GET_SIZES,
        DFS_PUNCHES,
        DFS_REMOVES,
        DFS_STATS,
        DFS_BYTES_READ,
        DFS_BYTES_WRITTEN,
        DFS_RW_SWITCHES,
        DFS_MAX_READ_TIME_SIZE,
        DFS_MAX_WRITE_TIME_SIZE,
        DFS_SIZE_READ_0_100,
        DFS_SIZE_READ_100_1K,
        DFS_SIZE_READ_1K_10K,
        DFS_SIZE_READ_10K_100K,
        DFS_SIZE_READ_100K_1M,
        DFS_SIZE_READ_1M_4M,
        DFS_SIZE_READ_4M_10M,
        DFS_SIZE_READ_10M_100M,
        DFS_SIZE_READ_100M_1G,
        DFS_SIZE_READ_1G_PLUS,
        DFS_SIZE_WRITE_0_100,
        DFS_SIZE_WRITE_100_1K,
        DFS_SIZE_WRITE_1K_10K,
        DFS_SIZE_WRITE_10K_100K,
        DFS_SIZE_WRITE_100K_1M,
        DFS_SIZE_WRITE_1M_4M,
        DFS_SIZE_WRITE_4M_10M,
        DFS_SIZE_WRITE_10M_100M,
        DFS_SIZE_WRITE_100M_1G,
        DFS_SIZE_WRITE_1G_PLUS,
        DFS_ACCESS1_ACCESS,
        DFS_ACCESS2_ACCESS,
        DFS_ACCESS3_ACCESS,
        DFS_ACCESS4_ACCESS,
        DFS_ACCESS1_COUNT,
        DFS_ACCESS2_COUNT,
        DFS_ACCESS3_COUNT,
        DFS_ACCESS4_COUNT,
        DFS_CHUNK_SIZE,
        DFS_FASTEST_RANK,
        DFS_FASTEST_RANK_BYTES,
        DFS_SLOWEST_RANK,
        DFS_SLOWEST_RANK_BYTES,
    }
}

counters! {
    /// `DFS` floating-point counters.
    DFS_F_NAMES: FloatCounter of id::DFS, DfsFNamesIndex {
        DFS_F_OPEN_START_TIMESTAMP,
        DFS_F_READ_START_TIMESTAMP,
        DFS_F_WRITE_START_TIMESTAMP,
        DFS_F_CLOSE_START_TIMESTAMP,
        DFS_F_OPEN_END_TIMESTAMP,
        DFS_F_READ_END_TIMESTAMP,
        DFS_F_WRITE_END_TIMESTAMP,
        DFS_F_CLOSE_END_TIMESTAMP,
        DFS_F_READ_TIME,
        DFS_F_WRITE_TIME,
        DFS_F_META_TIME,
        DFS_F_MAX_READ_TIME,
        DFS_F_MAX_WRITE_TIME,
        DFS_F_FASTEST_RANK_TIME,
        DFS_F_SLOWEST_RANK_TIME,
    }
}

counters! {
    /// `DAOS` integer counters.
    DAOS_NAMES: Counter of id::DAOS, DaosNamesIndex {
        DAOS_OBJ_OPENS,
        DAOS_OBJ_FETCHES,
        DAOS_OBJ_UPDATES,
        DAOS_OBJ_PUNCHES,
        DAOS_OBJ_DKEY_PUNCHES,
        DAOS_OBJ_AKEY_PUNCHES,
        DAOS_OBJ_DKEY_LISTS,
        DAOS_OBJ_AKEY_LISTS,
        DAOS_OBJ_RECX_LISTS,
        DAOS_ARRAY_OPENS,
        DAOS_ARRAY_READS,
        DAOS_ARRAY_WRITES,
        DAOS_ARRAY_GET_SIZES,
        DAOS_ARRAY_SET_SIZES,
        DAOS_ARRAY_STATS,
        DAOS_ARRAY_PUNCHES,
        DAOS_ARRAY_DESTROYS,
        DAOS_KV_OPENS,
        DAOS_KV_GETS,
        DAOS_KV_PUTS,
        DAOS_KV_REMOVES,
        DAOS_KV_LISTS,
        DAOS_KV_DESTROYS,
        DAOS_NB_OPS,
        DAOS_BYTES_READ,
        DAOS_BYTES_WRITTEN,
        DAOS_RW_SWITCHES,
        DAOS_MAX_READ_TIME_SIZE,
        DAOS_MAX_WRITE_TIME_SIZE,
        DAOS_SIZE_READ_0_100,
        DAOS_SIZE_READ_100_1K,
        DAOS_SIZE_READ_1K_10K,
        DAOS_SIZE_READ_10K_100K,
        DAOS_SIZE_READ_100K_1M,
        DAOS_SIZE_READ_1M_4M,
        DAOS_SIZE_READ_4M_10M,
        DAOS_SIZE_READ_10M_100M,
        DAOS_SIZE_READ_100M_1G,
        DAOS_SIZE_READ_1G_PLUS,
        DAOS_SIZE_WRITE_0_100,
        DAOS_SIZE_WRITE_100_1K,
        DAOS_SIZE_WRITE_1K_10K,
        DAOS_SIZE_WRITE_10K_100K,
        DAOS_SIZE_WRITE_100K_1M,
        DAOS_SIZE_WRITE_1M_4M,
        DAOS_SIZE_WRITE_4M_10M,
        DAOS_SIZE_WRITE_10M_100M,
        DAOS_SIZE_WRITE_100M_1G,
        DAOS_SIZE_WRITE_1G_PLUS,
        DAOS_ACCESS1_ACCESS,
        DAOS_ACCESS2_ACCESS,
        DAOS_ACCESS3_ACCESS,
        DAOS_ACCESS4_ACCESS,
        DAOS_ACCESS1_COUNT,
        DAOS_ACCESS2_COUNT,
        DAOS_ACCESS3_COUNT,
        DAOS_ACCESS4_COUNT,
        DAOS_OBJ_OTYPE,
        DAOS_ARRAY_CELL_SIZE,
        DAOS_ARRAY_CHUNK_SIZE,
        DAOS_FASTEST_RANK,
        DAOS_FASTEST_RANK_BYTES,
        DAOS_SLOWEST_RANK,
        DAOS_SLOWEST_RANK_BYTES,
    }
}

counters! {
    /// `DAOS` floating-point counters.
    DAOS_F_NAMES: FloatCounter of id::DAOS, DaosFNamesIndex {
        DAOS_F_OPEN_START_TIMESTAMP,
        DAOS_F_READ_START_TIMESTAMP,
        DAOS_F_WRITE_START_TIMESTAMP,
        DAOS_F_CLOSE_START_TIMESTAMP,
        DAOS_F_OPEN_END_TIMESTAMP,
        DAOS_F_READ_END_TIMESTAMP,
        DAOS_F_WRITE_END_TIMESTAMP,
        DAOS_F_CLOSE_END_TIMESTAMP,
        DAOS_F_READ_TIME,
        DAOS_F_WRITE_TIME,
        DAOS_F_META_TIME,
        DAOS_F_MAX_READ_TIME,
        DAOS_F_MAX_WRITE_TIME,
        DAOS_F_FASTEST_RANK_TIME,
        DAOS_F_SLOWEST_RANK_TIME,
    }
}

/// `BGQ` integer counters.
pub const BGQ_NAMES: &[&str] = &[
    "BGQ_CSJOBID",
    "BGQ_NNODES",
    "BGQ_RANKSPERNODE",
    "BGQ_DDRPERNODE",
    "BGQ_INODES",
    "BGQ_ANODES",
    "BGQ_BNODES",
    "BGQ_CNODES",
    "BGQ_DNODES",
    "BGQ_ENODES",
    "BGQ_TORUSENABLED",
];

/// `BGQ` floating-point counters.
pub const BGQ_F_NAMES: &[&str] = &["BGQ_F_TIMESTAMP"];

/// `MDHIM` integer counters.
pub const MDHIM_NAMES: &[&str] =
    &["MDHIM_PUTS", "MDHIM_GETS", "MDHIM_PUT_MAX_SIZE", "MDHIM_GET_MAX_SIZE", "MDHIM_SERVERS"];

/// `MDHIM` floating-point counters.
pub const MDHIM_F_NAMES: &[&str] = &[
    "MDHIM_F_PUT_TIMESTAMP",
    "MDHIM_F_GET_TIMESTAMP",
    "MDHIM_F_PUT_MAX_DURATION",
    "MDHIM_F_GET_MAX_DURATION",
];

/// `NULL` integer counters.
pub const NULL_NAMES: &[&str] = &["NULL_FOOS", "NULL_FOO_MAX_DAT"];

/// `NULL` floating-point counters.
pub const NULL_F_NAMES: &[&str] = &["NULL_F_FOO_TIMESTAMP", "NULL_F_FOO_MAX_DURATION"];

/// `LUSTRE_COMP` integer counters.
pub const LUSTRE_COMP_NAMES: &[&str] = &[
    "LUSTRE_COMP_STRIPE_SIZE",
    "LUSTRE_COMP_STRIPE_COUNT",
    "LUSTRE_COMP_STRIPE_PATTERN",
    "LUSTRE_COMP_FLAGS",
    "LUSTRE_COMP_EXT_START",
    "LUSTRE_COMP_EXT_END",
    "LUSTRE_COMP_MIRROR_ID",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_constant_is_its_name_at_its_place() {
        assert_eq!(POSIX_OPENS.index(), 0);
        assert_eq!(POSIX_WRITES.name(), "POSIX_WRITES");
        assert_eq!(POSIX_NAMES[POSIX_SLOWEST_RANK_BYTES.index()], "POSIX_SLOWEST_RANK_BYTES");
        assert_eq!(POSIX_F_SLOWEST_RANK_TIME.name(), "POSIX_F_SLOWEST_RANK_TIME");
        assert_eq!(MPIIO_COLL_WRITES.module(), id::MPIIO);
        assert_eq!(STDIO_F_META_TIME.name(), "STDIO_F_META_TIME");
        assert_eq!(DAOS_NAMES.len(), DAOS_NAMES.iter().collect::<std::collections::BTreeSet<_>>().len());
        for (bins, word) in [(POSIX_SIZE_READ_BINS, "READ"), (POSIX_SIZE_WRITE_BINS, "WRITE")] {
            let names: Vec<&str> = bins.iter().map(|bin| bin.name()).collect();
            assert!(names.iter().all(|name| name.starts_with(&format!("POSIX_SIZE_{word}_"))), "{names:?}");
            assert!(bins.windows(2).all(|pair| pair[0].index() + 1 == pair[1].index()));
        }
    }
}
