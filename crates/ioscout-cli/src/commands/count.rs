//! `ioscout count`: events per file and in total, by phase.

use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

use ioscout_model::PhaseCounts;
use ioscout_read::{FileSummary, NoFold};
use serde::Serialize;

use crate::cli::CountArguments;
use crate::common::{self, display_path, thousands};

#[derive(Serialize)]
struct FileCounts<'a> {
    path: String,
    #[serde(flatten)]
    counts: &'a PhaseCounts,
}

#[derive(Serialize)]
struct CountOutput<'a> {
    total: PhaseCounts,
    files: Vec<FileCounts<'a>>,
    problem_count: u64,
    problems: Vec<&'a ioscout_read::Problem>,
}

pub(crate) fn run(arguments: &CountArguments) -> anyhow::Result<ExitCode> {
    let (files, input_problems) = common::discover(&arguments.input);
    let (scanner, bar) = common::scanner_with_progress(&arguments.input, &files, "counting");
    let report = scanner.scan(&files, &input_problems, |_| NoFold, |_, _, _| ControlFlow::Continue(()));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let total = report.totals();
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    if arguments.json {
        let output = CountOutput {
            total,
            files: report
                .files
                .iter()
                .map(|file| FileCounts { path: display_path(&file.path), counts: &file.counts })
                .collect(),
            problem_count: report.problem_count(),
            problems: report.problems().collect(),
        };
        serde_json::to_writer_pretty(&mut stdout, &output)?;
        writeln!(stdout)?;
    } else {
        write_table(&mut stdout, &report.files, &total)?;
    }
    stdout.flush()?;
    drop(stdout);
    Ok(common::finish(&report, &arguments.input))
}

fn write_table(out: &mut impl Write, files: &[FileSummary], total: &PhaseCounts) -> std::io::Result<()> {
    let header = ["complete", "metadata", "counter", "aggregated", "other", "invalid"];
    let row = |counts: &PhaseCounts| {
        [counts.complete, counts.metadata, counts.counter, counts.aggregated, counts.other, counts.invalid]
            .map(thousands)
    };
    let width = files.iter().map(|file| display_path(&file.path).len()).max().unwrap_or(5).clamp(5, 80);
    write!(out, "{:<width$}", "file")?;
    for name in header {
        write!(out, " {name:>12}")?;
    }
    writeln!(out)?;
    for file in files {
        write!(out, "{:<width$}", display_path(&file.path))?;
        for value in row(&file.counts) {
            write!(out, " {value:>12}")?;
        }
        writeln!(out)?;
    }
    write!(out, "{:<width$}", format!("total ({} files)", files.len()))?;
    for value in row(total) {
        write!(out, " {value:>12}")?;
    }
    writeln!(out)
}
