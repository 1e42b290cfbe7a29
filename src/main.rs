//! The `captop` binary: parse the command line, hand over to [`captop::run`].

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = captop::cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("captop: cannot start the async runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = runtime.block_on(captop::run::run(cli));
    // Do not wait for stray blocking tasks (a hung keyring call, a stalled read) at exit.
    runtime.shutdown_background();
    ExitCode::from(code)
}
