//! `S01`: STDIO moves more than 10 % of the bytes (Drishti's trigger on Darshan counters).

use crate::darshan::{DarshanContext, DarshanRule, Level};
use crate::{Finding, RuleDoc, rule};
use ioscout_darshan::counters::{
    MPIIO_BYTES_READ, MPIIO_BYTES_WRITTEN, POSIX_BYTES_READ, POSIX_BYTES_WRITTEN, STDIO_BYTES_READ,
    STDIO_BYTES_WRITTEN,
};

rule! {
    pub struct StdioShare {
        code: "S01",
        family: Drishti,
        title: "STDIO moves more than 10 % of the bytes",
        detects: "The share of bytes read and written through STDIO, against STDIO + POSIX (less what MPI-IO moved through POSIX) + MPI-IO.",
        why: "STDIO buffers in user space and serialises on its stream lock; Drishti recommends a high-performance interface (MPI-IO, or HDF5/PnetCDF over it).",
        evidence: "STDIO bytes, total bytes, STDIO share.",
        thresholds: "fires when stdio / total > interface_stdio (0.1); Drishti level HIGH.",
        references: "Bez, Ather, Byna, Drishti: Guiding End-Users in the I/O Optimization Journey, PDSW 2022; hpc-io/drishti-io 0.8 (drishti/includes/module.py, drishti/handlers/handle_darshan.py).",
    }
}

impl DarshanRule for StdioShare {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let stdio = context.total(STDIO_BYTES_WRITTEN) + context.total(STDIO_BYTES_READ);
        let mut posix = context.total(POSIX_BYTES_WRITTEN) + context.total(POSIX_BYTES_READ);
        let mpiio = context.total(MPIIO_BYTES_WRITTEN) + context.total(MPIIO_BYTES_READ);
        if posix > 0 && posix >= mpiio {
            posix -= mpiio;
        }
        let total = stdio + posix + mpiio;
        if total <= 0 || (stdio as f64 / total as f64) <= context.thresholds.interface_stdio {
            return Vec::new();
        }
        let share = stdio as f64 / total as f64;
        let why = format!(
            "the job moves {:.2} % of its bytes ({} of {}) through STDIO",
            share * 100.0,
            crate::human_bytes(stdio as f64),
            crate::human_bytes(total as f64)
        );
        vec![
            context
                .weighted_finding(&Self::DOC, Level::High, share, "STDIO", why)
                .with("stdio_bytes", stdio as f64, "bytes")
                .with("total_bytes", total as f64, "bytes")
                .with("stdio_share", share, "fraction")
                .crossing("stdio share > interface_stdio"),
        ]
    }
}
