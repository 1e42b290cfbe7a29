//! The `captop` binary: parse the command line, hand over to [`captop::run`].

use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match captop::cli::parse() {
        Ok(cli) => cli,
        Err(code) => return ExitCode::from(code),
    };
    let runtime = match runtime_for(cli.command.as_ref()).enable_all().build() {
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

/// The servers (`serve`, `demo-server`) answer many readers at once on two worker threads.
/// Everything else is one user's: the dashboard, `--once`, `check`, `auth` run on this thread
/// alone, so that their memory comes from one allocator arena: with worker threads, a report
/// decoded on one and dropped on another leaves each thread's arena holding freed pages.
fn runtime_for(command: Option<&captop::cli::Command>) -> tokio::runtime::Builder {
    use captop::cli::Command;
    match command {
        Some(Command::Serve(_) | Command::DemoServer(_)) => {
            let mut builder = tokio::runtime::Builder::new_multi_thread();
            builder.worker_threads(2);
            builder
        }
        _ => tokio::runtime::Builder::new_current_thread(),
    }
}
