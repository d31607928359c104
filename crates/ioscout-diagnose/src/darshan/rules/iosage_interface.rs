//! `IOS-INTERFACE` on Darshan counters: bulk data through STDIO, or a parallel job's MPI-IO
//! without collective calls.

use crate::darshan::{DarshanContext, DarshanRule, Module};
use crate::{Finding, RuleDoc, clip01, rule};

rule! {
    pub struct Interface {
        code: "IOS-INTERFACE",
        family: Iosage,
        title: "Interface choice: bulk data through STDIO, or independent MPI-IO in a parallel job",
        detects: "STDIO moves more than 10 % (and 1 MiB or more) of the bytes of STDIO and POSIX; or a parallel job issues more than 1,000 independent MPI-IO operations and no collective one (IOSage's interface_choice).",
        why: "STDIO adds a user-space copy and a stream lock; independent MPI-IO forgoes the aggregation that makes shared-file I/O scale.",
        evidence: "STDIO share of the bytes, or independent MPI-IO operations.",
        thresholds: "fires when STDIO bytes / (POSIX + STDIO bytes) > 0.1 and STDIO bytes >= 1 MiB, or when nprocs > 1, MPI-IO independent operations > 1000 and collective = 0; score = share x clip01(I/O share / 0.2).",
        references: "IOSage (collective_ratio, nonblocking_ratio; DIOBench ior_interface_mpiio_indep runs); Drishti S01, M02/M03.",
        change: "Move bulk data through POSIX read/write with large buffers (or MPI-IO, HDF5, NetCDF for parallel jobs); under MPI-IO, use the collective calls (MPI_File_read_all/write_all) so ROMIO aggregates.",
        not_when: "STDIO carries logs and small text only, or each rank writes its own file where collective I/O brings nothing.",
    }
}

impl DarshanRule for Interface {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        let io = clip01(context.io_share() / 0.2);
        let stdio = (context.total(Module::Stdio, "STDIO_BYTES_READ")
            + context.total(Module::Stdio, "STDIO_BYTES_WRITTEN"))
        .max(0);
        let posix = (context.total(Module::Posix, "POSIX_BYTES_READ")
            + context.total(Module::Posix, "POSIX_BYTES_WRITTEN"))
        .max(0);
        let mut findings = Vec::new();
        if stdio >= 1 << 20 && stdio as f64 / (stdio + posix) as f64 > 0.1 {
            let share = stdio as f64 / (stdio + posix) as f64;
            let why = format!(
                "STDIO moves {:.1} % of the bytes ({})",
                share * 100.0,
                crate::human_bytes(stdio as f64)
            );
            findings.push(Finding::new(&Self::DOC, clip01(share) * io, "STDIO", why).with(
                "stdio_share",
                share,
                "fraction",
            ));
        }
        let independent = context.total(Module::MpiIo, "MPIIO_INDEP_READS")
            + context.total(Module::MpiIo, "MPIIO_INDEP_WRITES");
        let collective = context.total(Module::MpiIo, "MPIIO_COLL_READS")
            + context.total(Module::MpiIo, "MPIIO_COLL_WRITES");
        if context.facts.nprocs > 1 && independent > 1000 && collective == 0 {
            let why = format!(
                "{independent} independent MPI-IO operations and no collective one over {} ranks",
                context.facts.nprocs
            );
            findings.push(Finding::new(&Self::DOC, io, "MPI-IO", why).with(
                "independent_operations",
                independent as f64,
                "count",
            ));
        }
        findings
    }
}
