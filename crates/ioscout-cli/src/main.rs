//! The `ioscout` binary: parses the command line, runs one command, maps the outcome to an exit
//! code (0 ok, 1 findings, 2 error) and exits quietly on a broken pipe.

mod cli;
mod commands;
mod common;
mod job;
#[cfg(feature = "mpi")]
mod mpi_job;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let arguments = cli::Arguments::parse();
    ioscout_service::text::set_width(terminal_width());
    let job = match job::start() {
        Ok(job) => job,
        Err(error) => {
            common::report_error(&error);
            return ExitCode::from(2);
        }
    };
    let code = match commands::run(&arguments) {
        Ok(code) => code,
        Err(error) if is_broken_pipe(&error) => {
            job::end_on_local_failure(&error, 0);
            ExitCode::SUCCESS
        }
        Err(error) => {
            common::report_error(&error);
            job::end_on_local_failure(&error, 2);
            ExitCode::from(2)
        }
    };
    // Leaves the MPI job (after any abort above: finalising waits for every rank).
    drop(job);
    code
}

/// The width text output is fitted to: `COLUMNS` when set, else the terminal's when standard
/// output is one; `None` (no limit) for a pipe or a file.
fn terminal_width() -> Option<usize> {
    if let Some(columns) = std::env::var("COLUMNS").ok().and_then(|value| value.trim().parse::<usize>().ok())
    {
        return (columns > 0).then_some(columns.max(40));
    }
    terminal_size::terminal_size_of(std::io::stdout()).map(|(width, _)| usize::from(width.0).max(40))
}

/// Whether the error comes from writing to a closed pipe (`ioscout view ... | head`), which is a
/// normal way for output to end. Same convention as ripgrep.
fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
