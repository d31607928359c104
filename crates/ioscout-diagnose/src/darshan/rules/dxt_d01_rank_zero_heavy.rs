//! `D01`: rank 0 does more I/O than every other rank (DXT Explorer's insight, from DXT traces).

use crate::darshan::{DarshanContext, DarshanRule, Level};
use crate::{Finding, RuleDoc, rule};

rule! {
    pub struct RankZeroHeavy {
        code: "D01",
        family: Drishti,
        title: "Rank 0 issues more I/O than every other rank",
        detects: "From the DXT traces of one interface (POSIX or MPI-IO): rank 0 moved more bytes and issued more requests than each other rank of a parallel job (ranks without a trace count as zero).",
        why: "When rank 0 reads or writes on behalf of the others, the job's I/O is serialised on one process and its network link; DXT Explorer and Drishti recommend MPI-IO collective operations so that the work spreads over aggregators.",
        evidence: "interface, rank 0's bytes and requests, the largest of the other ranks.",
        thresholds: "fires when the job has more than one process and rank 0's bytes and requests both exceed every other rank's; Drishti level HIGH.",
        references: "hpc-io/dxt-explorer explorer/insights.py (rank_zero_workload); Drishti --json ingestion (D01).",
    }
}

/// Bytes and requests per rank of one interface's DXT traces.
impl DarshanRule for RankZeroHeavy {
    fn doc(&self) -> &'static RuleDoc {
        &Self::DOC
    }

    fn evaluate(&self, context: &DarshanContext<'_>) -> Vec<Finding> {
        if context.facts.nprocs <= 1 {
            return Vec::new();
        }
        let mut findings = Vec::new();
        for (interface, ranks) in [("POSIX", &context.facts.dxt_posix), ("MPI-IO", &context.facts.dxt_mpiio)]
        {
            let Some(&(reads, writes, bytes, _)) = ranks.get(&0) else { continue };
            let requests = reads + writes;
            let others = ranks.iter().filter(|(rank, _)| **rank != 0);
            let (other_bytes, other_requests) = others
                .fold((0_i64, 0_i64), |(bytes, requests), (_, (r, w, b, _))| {
                    (bytes.max(*b), requests.max(r + w))
                });
            if bytes > other_bytes && requests > other_requests {
                let why = format!(
                    "rank 0 moves {bytes} bytes in {requests} {interface} requests; no other rank moves more than {other_bytes} bytes or issues more than {other_requests}"
                );
                findings.push(
                    context
                        .finding(&Self::DOC, Level::High, interface, why)
                        .with("rank0_bytes", bytes as f64, "bytes")
                        .with("rank0_requests", requests as f64, "count")
                        .with("other_max_bytes", other_bytes as f64, "bytes"),
                );
            }
        }
        findings
    }
}
