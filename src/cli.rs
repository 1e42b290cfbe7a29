//! The command line: flags, environment variables and subcommands (clap derive).
//!
//! Flags only describe what the user asked for; [`crate::config`] merges them with the
//! environment, the config file's profile and the defaults into the settings captop runs with.

use std::net::SocketAddr;
use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Args, Parser, Subcommand, ValueEnum};

/// Exit code: the figures could not be had.
pub const EXIT_FAILURE: u8 = 1;
/// Exit code: usage or configuration error.
pub const EXIT_USAGE: u8 = 2;

/// The command line of this process; or, said in one line, why it is not one, and the exit
/// code: help and version on stdout with 0; a usage error on stderr with [`EXIT_USAGE`], but in
/// check mode the plugin's `CAPTOP UNKNOWN - …` on stdout with 3, since a monitoring system
/// reads 2 as CRITICAL and a typo in a service definition must not page anyone.
pub fn parse() -> Result<Cli, u8> {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    Cli::try_parse_from(&argv).map_err(|e| {
        use clap::error::ErrorKind;
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            // A closed stdout (`captop --help | head -1`) is the reader having had enough.
            let _ = e.print();
            return 0;
        }
        let (line, check) = usage_error(&e, argv.get(1..).unwrap_or_default());
        crate::run::refuse(check, &line, EXIT_USAGE)
    })
}

/// A clap error in one line (its message, then its tips and possible values in brackets, and
/// which `--help` to read instead of the usage), and whether it is check mode's.
fn usage_error(e: &clap::Error, args: &[String]) -> (String, bool) {
    let path = command_path(args);
    let rendered = e.render().to_string();
    let mut lines = rendered.lines();
    let first = lines.next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let mut details: Vec<&str> = lines
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| l.strip_prefix("tip: ").unwrap_or(l))
        .map(|l| l.trim_start_matches('[').trim_end_matches(']'))
        .collect();
    if first.starts_with("the subcommand '") {
        details.push("a command's flags go after its name");
    }
    let details = if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join("; "))
    };
    let shown = std::iter::once("captop").chain(path.iter().map(String::as_str));
    let shown = shown.collect::<Vec<_>>().join(" ");
    let message = format!("{first}{details} — see `{shown} --help`");
    let nagios = args
        .windows(2)
        .any(|w| matches!(w, [flag, value] if flag == "--format" && value == "nagios"))
        || args.iter().any(|a| a == "--format=nagios");
    let check = path.first().is_some_and(|p| p == "check") || (path.is_empty() && nagios);
    (message, check)
}

/// The subcommands `args` names, outermost first (`["auth", "login"]`), as far as they go.
fn command_path(args: &[String]) -> Vec<String> {
    let mut cmd = <Cli as clap::CommandFactory>::command();
    let mut path = Vec::new();
    for arg in args {
        if let Some(sub) = cmd.find_subcommand(arg).cloned() {
            path.push(sub.get_name().to_owned());
            cmd = sub;
        }
    }
    path
}

/// Live capacity metrics of a network of call routes, in your terminal.
///
/// Without a command: the dashboard, or the `--once` report when stdout is not a terminal. Each
/// command takes only its own flags, written after its name (`captop check -w 85`).
#[derive(Debug, Parser)]
#[command(
    name = "captop",
    bin_name = "captop",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// The dashboard's and `--once`'s options.
    #[command(flatten)]
    pub dashboard: DashboardArgs,

    /// A command instead of the dashboard.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// What the settings take from the command line, whichever command's flags gave it; `None` and
/// `false` where that command has no such flag, so the profile or the default decides.
#[derive(Debug, Clone, Default)]
pub struct GlobalArgs {
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--api-key-file`.
    pub api_key_file: Option<PathBuf>,
    /// `--timeout`.
    pub timeout: Option<f64>,
    /// `--interval`.
    pub interval: Option<f64>,
    /// `--budget`.
    pub budget: Option<u32>,
    /// `--max-body-mib`.
    pub max_body_mib: Option<u32>,
    /// `--profile`, as often as given.
    pub profile: Vec<String>,
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--no-color`.
    pub no_color: bool,
    /// `--ascii`.
    pub ascii: bool,
    /// `--allow-insecure-http`.
    pub allow_insecure_http: bool,
}

/// Which config file and profile: every command that reads the config takes these.
#[derive(Debug, Clone, Default, Args)]
pub struct ProfileArgs {
    /// Named profile of the config file; given more than once, the dashboard, --once and
    /// check show each profile's service side by side [default: the file's default_profile,
    /// else `default`].
    #[arg(long, env = "CAPTOP_PROFILE", value_name = "NAME")]
    pub profile: Vec<String>,

    /// Config file to read instead of the default one [default: config.toml in the platform's
    /// config directory; `captop config path` prints it].
    #[arg(long, env = "CAPTOP_CONFIG", value_name = "PATH")]
    pub config: Option<PathBuf>,
}

impl ProfileArgs {
    /// What the settings take from these flags.
    pub fn settings_args(&self) -> GlobalArgs {
        settings_args(self, None, None)
    }
}

/// Where the service is (`captop history` reads the history it names).
#[derive(Debug, Clone, Default, Args)]
pub struct BaseUrlArgs {
    /// Base URL of the metrics service, ending in /v1 [default: the profile's base_url].
    #[arg(long, env = "CAPTOP_BASE_URL", value_name = "URL")]
    pub base_url: Option<String>,
}

/// How to reach the service: every command that asks it takes these.
#[derive(Debug, Clone, Default, Args)]
pub struct ServiceArgs {
    /// Where the service is.
    #[command(flatten)]
    pub base: BaseUrlArgs,

    /// Read the API key from this file (it should be readable by you alone) [default: the
    /// first of CAPTOP_API_KEY, the profile's api_key_command, the OS keyring].
    #[arg(long, value_name = "PATH")]
    pub api_key_file: Option<PathBuf>,

    /// Whole-request timeout in seconds (in check mode, the whole check's: UNKNOWN when it
    /// runs out) [default: 10, or the profile's timeout].
    #[arg(short = 't', long, value_name = "SECS")]
    pub timeout: Option<f64>,

    /// Largest response body to read, in MiB; raise it for networks of more than about
    /// 38,000 routes [default: 8, or the profile's max_body_mib].
    #[arg(long, value_name = "MIB")]
    pub max_body_mib: Option<u32>,

    /// Allow plain http:// to a host other than loopback: the key then travels in clear.
    #[arg(long)]
    pub allow_insecure_http: bool,
}

/// The request budget: every command that polls takes it.
#[derive(Debug, Clone, Default, Args)]
pub struct BudgetArgs {
    /// Requests per minute captop allows itself, shared by all captop processes of this user
    /// [default: 60, or the profile's budget].
    #[arg(long, value_name = "N")]
    pub budget: Option<u32>,
}

/// The dashboard's and `--once`'s options: the top-level command's.
#[derive(Debug, Clone, Default, Args)]
pub struct DashboardArgs {
    /// The config file and profile.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// The service.
    #[command(flatten)]
    pub service: ServiceArgs,

    /// Seconds between polls; raised when the request budget does not allow it [default: 5,
    /// or the profile's interval].
    #[arg(long, value_name = "SECS")]
    pub interval: Option<f64>,

    /// The request budget.
    #[command(flatten)]
    pub budget: BudgetArgs,

    /// Run against an embedded simulated service on loopback: no key, no server needed.
    #[arg(long)]
    pub demo: bool,

    /// Print the figures once and exit, for quick checks and scripts.
    #[arg(long)]
    pub once: bool,

    /// Output format of --once.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,

    /// With --once: the figures as they were at TIME, from the history (RFC 3339, or back from
    /// the newest recorded: -90m, -3h, -1d, -2w).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub at: Option<String>,

    /// No colours (also when NO_COLOR is set).
    #[arg(long)]
    pub no_color: bool,

    /// Draw with ASCII characters only.
    #[arg(long)]
    pub ascii: bool,

    /// Thresholds of check mode (`--format nagios`).
    #[command(flatten)]
    pub check: CheckArgs,
}

impl DashboardArgs {
    /// What the settings take from these flags.
    pub fn settings_args(&self) -> GlobalArgs {
        GlobalArgs {
            interval: self.interval,
            no_color: self.no_color,
            ascii: self.ascii,
            ..settings_args(&self.profile, Some(&self.service), Some(&self.budget))
        }
    }
}

/// `captop check`: `--once --format nagios` by another name, with only the flags it uses.
#[derive(Debug, Clone, Default, Args)]
pub struct CheckModeArgs {
    /// The config file and profile.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// The service.
    #[command(flatten)]
    pub service: ServiceArgs,

    /// The request budget.
    #[command(flatten)]
    pub budget: BudgetArgs,

    /// Check the embedded simulated service instead: no key, no server needed.
    #[arg(long)]
    pub demo: bool,

    /// The thresholds.
    #[command(flatten)]
    pub check: CheckArgs,
}

impl CheckModeArgs {
    /// The same check asked for as `--once --format nagios`.
    pub fn as_once(&self) -> DashboardArgs {
        DashboardArgs {
            profile: self.profile.clone(),
            service: self.service.clone(),
            budget: self.budget.clone(),
            demo: self.demo,
            once: true,
            format: Format::Nagios,
            check: self.check.clone(),
            ..DashboardArgs::default()
        }
    }
}

/// The settings' inputs from the flags a command has; the others left to the profile.
fn settings_args(
    profile: &ProfileArgs,
    service: Option<&ServiceArgs>,
    budget: Option<&BudgetArgs>,
) -> GlobalArgs {
    let service = service.cloned().unwrap_or_default();
    GlobalArgs {
        base_url: service.base.base_url,
        api_key_file: service.api_key_file,
        timeout: service.timeout,
        budget: budget.and_then(|b| b.budget),
        max_body_mib: service.max_body_mib,
        profile: profile.profile.clone(),
        config: profile.config.clone(),
        allow_insecure_http: service.allow_insecure_http,
        ..GlobalArgs::default()
    }
}

/// `captop auth login|logout|status`: the profile, and the service to check the key against.
#[derive(Debug, Clone, Default, Args)]
pub struct AuthArgs {
    /// The config file and profile.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// The service.
    #[command(flatten)]
    pub service: ServiceArgs,
}

impl AuthArgs {
    /// What the settings take from these flags.
    pub fn settings_args(&self) -> GlobalArgs {
        settings_args(&self.profile, Some(&self.service), None)
    }
}

/// `captop history info|export`: the profile and the service whose history to read.
#[derive(Debug, Clone, Default, Args)]
pub struct HistoryArgs {
    /// The config file and profile.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// The service whose history it is.
    #[command(flatten)]
    pub base: BaseUrlArgs,

    /// The embedded simulated service's week instead: no key, no server needed.
    #[arg(long, global = true)]
    pub demo: bool,
}

impl HistoryArgs {
    /// What the settings take from these flags.
    pub fn settings_args(&self) -> GlobalArgs {
        GlobalArgs {
            base_url: self.base.base_url.clone(),
            ..settings_args(&self.profile, None, None)
        }
    }
}

/// Thresholds of check mode, in the monitoring plugins' range syntax: `80` alerts above 80,
/// `10:` below 10, `~:90` above 90, `10:20` outside 10..20, `@10:20` inside it. Each defaults
/// to the profile's `[check]` table in the config file.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Check mode")]
pub struct CheckArgs {
    /// Warning range for each route's fill % [default: from the profile's warn_pct on].
    #[arg(short = 'w', long, value_name = "RANGE")]
    pub warning: Option<String>,

    /// Critical range for each route's fill % [default: from the profile's crit_pct on].
    #[arg(short = 'c', long, value_name = "RANGE")]
    pub critical: Option<String>,

    /// Warning range for today's utilization %.
    #[arg(long, value_name = "RANGE")]
    pub utilization_warning: Option<String>,

    /// Critical range for today's utilization %.
    #[arg(long, value_name = "RANGE")]
    pub utilization_critical: Option<String>,

    /// Warning range for the number of routes sold out (e.g. `0` warns from one on).
    #[arg(long, value_name = "RANGE")]
    pub sold_out_warning: Option<String>,

    /// Critical range for the number of routes sold out.
    #[arg(long, value_name = "RANGE")]
    pub sold_out_critical: Option<String>,

    /// Warning range for the free ports of all routes together (e.g. `100:` warns below 100).
    #[arg(long, value_name = "RANGE")]
    pub free_ports_warning: Option<String>,

    /// Critical range for the free ports of all routes together.
    #[arg(long, value_name = "RANGE")]
    pub free_ports_critical: Option<String>,

    /// Warning when a route is forecast to sell out within this many hours.
    #[arg(long, value_name = "HOURS")]
    pub sells_out_within_warning: Option<f64>,

    /// Critical when a route is forecast to sell out within this many hours.
    #[arg(long, value_name = "HOURS")]
    pub sells_out_within_critical: Option<f64>,
}

/// Output formats of `--once`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// An aligned plain-text report.
    #[default]
    Table,
    /// One JSON object: capacity, utilization, warnings.
    Json,
    /// A one-line summary and a Markdown table, for tickets and chat.
    Markdown,
    /// A monitoring plugin's output and exit code (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).
    Nagios,
    /// The Prometheus text exposition `captop serve` gives at `/metrics`, for node_exporter's
    /// textfile collector.
    Prometheus,
}

/// Maintenance commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Store, check or remove the API key in the OS keyring.
    #[command(mut_args(|arg| arg.global(true)))]
    Auth(AuthCommandArgs),
    /// Show or check the config file.
    #[command(mut_args(|arg| arg.global(true)))]
    Config(ConfigCommandArgs),
    /// Run the simulated service standalone and print its base URL and key.
    DemoServer(DemoServerArgs),
    /// Print a shell completion script for bash, zsh, fish, elvish or PowerShell.
    Completions(CompletionsArgs),
    /// Print the manual page in roff: `captop man > captop.1`, then `man ./captop.1`.
    Man,
    /// Check mode for Nagios, Icinga and the like: `--once --format nagios` by another name.
    Check(CheckModeArgs),
    /// Poll the service once for a whole team: relay its API to any number of readers and
    /// export the figures to Prometheus at /metrics.
    #[command(mut_arg("budget", |arg| arg.help(
        "Requests per minute captop allows itself, shared by all captop processes of this \
         user [default: 100, or the profile's budget]"
    )))]
    Serve(ServeArgs),
    /// Show or export the figures recorded over days.
    #[command(mut_args(|arg| arg.global(true)))]
    History(HistoryCommandArgs),
}

/// `captop auth ...`: the command, and the flags all three take.
#[derive(Debug, Args)]
pub struct AuthCommandArgs {
    /// Which one.
    #[command(subcommand)]
    pub command: AuthCommand,
    /// The profile and the service, before or after the command's name.
    #[command(flatten)]
    pub args: AuthArgs,
}

/// `captop config ...`: the command, and the flags both take.
#[derive(Debug, Args)]
pub struct ConfigCommandArgs {
    /// Which one.
    #[command(subcommand)]
    pub command: ConfigCommand,
    /// The config file and profile, before or after the command's name.
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// `captop history ...`: the command, and the flags both take.
#[derive(Debug, Args)]
pub struct HistoryCommandArgs {
    /// Which one.
    #[command(subcommand)]
    pub command: HistoryCommand,
    /// The profile and service, before or after the command's name.
    #[command(flatten)]
    pub args: HistoryArgs,
}

/// `captop history ...`
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Where the service's history file is, what it spans and how large it is.
    Info,
    /// Write a time window of the history as CSV, JSON lines or OpenMetrics (the last loads
    /// into Prometheus with `promtool tsdb create-blocks-from openmetrics`).
    Export(HistoryExportArgs),
}

/// `captop history export`
#[derive(Debug, Args)]
pub struct HistoryExportArgs {
    /// Start of the window (RFC 3339, or back from the newest recorded: -3h, -1d, -2w);
    /// the oldest recorded when left out.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub from: Option<String>,
    /// End of the window; the newest recorded when left out.
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    pub to: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ExportFormat::Csv)]
    pub format: ExportFormat,
}

/// Formats of `captop history export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormat {
    /// One line per route per report, with a header line.
    Csv,
    /// One JSON object per route per report.
    Jsonl,
    /// OpenMetrics text with timestamps, the metric names of `/metrics`.
    Openmetrics,
}

/// `captop completions SHELL`
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `captop auth ...`
#[derive(Debug, Subcommand)]
pub enum AuthCommand {
    /// Read a key (no echo at a terminal, or from stdin), check it, store it in the keyring.
    Login,
    /// Delete the profile's key from the keyring.
    Logout,
    /// Say where each profile's key comes from and whether it works.
    Status,
}

/// `captop config ...`
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the path the config is read from.
    Path,
    /// Validate the config file.
    Check,
}

/// `captop demo-server ...`
#[derive(Debug, Args)]
pub struct DemoServerArgs {
    /// Address to listen on.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,

    /// API key clients must send; a random one when left out.
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,

    /// Seed of the simulation, for the same figures on every run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,

    /// Requests allowed per minute per IP address.
    #[arg(long, default_value_t = 120)]
    pub rate_limit: u32,

    /// Simulated seconds per real second (1 = real time; 600 = a day in 2.4 minutes). At any
    /// speed but 1, generated_at is the simulated instant, and a faster clock starts 35 days
    /// back unless --sim-start says where.
    #[arg(long, value_name = "N", alias = "time-scale", default_value_t = 1.0)]
    pub speed: f64,

    /// Simulated instant to start at, RFC 3339 (e.g. 2026-11-22T06:00:00Z); generated_at
    /// then runs on the simulated clock, whatever the speed.
    #[arg(long, value_name = "TIME", value_parser = parse_rfc3339)]
    pub sim_start: Option<DateTime<Utc>>,

    /// Number of routes to simulate.
    #[arg(long, default_value_t = 14)]
    pub routes: usize,
}

/// An RFC 3339 instant, such as `2026-11-22T06:00:00Z`, as UTC.
fn parse_rfc3339(text: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(text)
        .map(|at| at.to_utc())
        .map_err(|e| format!("not an RFC 3339 time ({e}): write it like 2026-11-22T06:00:00Z"))
}

/// `captop serve ...`: the relay's options, and the service, key, interval and budget as for
/// the dashboard.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// The config file and profile.
    #[command(flatten)]
    pub profile: ProfileArgs,

    /// The service.
    #[command(flatten)]
    pub service: ServiceArgs,

    /// Seconds between polls; raised when the request budget does not allow it [default: 5,
    /// or the profile's interval].
    #[arg(long, value_name = "SECS")]
    pub interval: Option<f64>,

    /// The request budget.
    #[command(flatten)]
    pub budget: BudgetArgs,

    /// Relay an embedded simulated service on loopback: no key, no server needed.
    #[arg(long)]
    pub demo: bool,

    /// Address readers connect to. Anything but loopback needs --token-file and --tls-cert/
    /// --tls-key (or --allow-insecure-listen).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:9477")]
    pub listen: SocketAddr,

    /// Readers' bearer tokens, one a line (`#` comments allowed); the file must be readable by
    /// you alone (mode 600). Without it every reader is let in.
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,

    /// TLS certificate chain (PEM) to serve HTTPS with; needs --tls-key.
    #[arg(long, value_name = "PATH", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// TLS private key (PEM) matching --tls-cert.
    #[arg(long, value_name = "PATH", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,

    /// Listen on a non-loopback address without reader tokens or without TLS: anyone on the
    /// network may then read the figures, or read them and the tokens in clear.
    #[arg(long)]
    pub allow_insecure_listen: bool,

    /// Format of the log lines on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Most reader connections open at once; more wait for a free one.
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub max_connections: usize,
}

impl ServeArgs {
    /// What the settings take from these flags.
    pub fn settings_args(&self) -> GlobalArgs {
        GlobalArgs {
            interval: self.interval,
            ..settings_args(&self.profile, Some(&self.service), Some(&self.budget))
        }
    }
}

/// Formats of the relay's log lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// `captop serve: message`, for a person.
    #[default]
    Text,
    /// One JSON object a line (`ts`, `level`, `msg`, fields), for journald or Loki.
    Json,
}
