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

/// Live capacity metrics of a network of call routes, in your terminal.
#[derive(Debug, Parser)]
#[command(name = "captop", version, about, long_about = None)]
pub struct Cli {
    /// Options shared by every mode.
    #[command(flatten)]
    pub global: GlobalArgs,

    /// A maintenance command instead of the dashboard.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Options shared by the dashboard, `--once` and the `auth` commands.
#[derive(Debug, Clone, Default, Args)]
pub struct GlobalArgs {
    /// Base URL of the metrics service, ending in /v1.
    #[arg(long, env = "CAPTOP_BASE_URL", value_name = "URL", global = true)]
    pub base_url: Option<String>,

    /// Read the API key from this file (it should be readable by you alone).
    #[arg(long, value_name = "PATH", global = true)]
    pub api_key_file: Option<PathBuf>,

    /// Whole-request timeout in seconds (in check mode, the whole check's: UNKNOWN when it
    /// runs out).
    #[arg(short = 't', long, value_name = "SECS", global = true)]
    pub timeout: Option<f64>,

    /// Run against an embedded simulated service on loopback: no key, no server needed.
    #[arg(long, global = true)]
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

    /// Seconds between polls; raised when the request budget does not allow it.
    #[arg(long, value_name = "SECS", global = true)]
    pub interval: Option<f64>,

    /// Requests per minute captop allows itself (shared by all captop processes of this user).
    #[arg(long, value_name = "N", global = true)]
    pub budget: Option<u32>,

    /// Largest response body to read, in MiB (default 8; raise it for networks of more than
    /// about 38,000 routes).
    #[arg(long, value_name = "MIB", global = true)]
    pub max_body_mib: Option<u32>,

    /// Named profile of the config file; given more than once, the dashboard, --once and
    /// check show each profile's service side by side.
    #[arg(long, env = "CAPTOP_PROFILE", value_name = "NAME", global = true)]
    pub profile: Vec<String>,

    /// Config file to read instead of the default one.
    #[arg(long, env = "CAPTOP_CONFIG", value_name = "PATH", global = true)]
    pub config: Option<PathBuf>,

    /// No colours (also when NO_COLOR is set).
    #[arg(long, global = true)]
    pub no_color: bool,

    /// Draw with ASCII characters only.
    #[arg(long, global = true)]
    pub ascii: bool,

    /// Allow plain http:// to a host other than loopback: the key then travels in clear.
    #[arg(long, global = true)]
    pub allow_insecure_http: bool,

    /// Thresholds of check mode (`--format nagios`, `captop check`).
    #[command(flatten)]
    pub check: CheckArgs,
}

/// Thresholds of check mode, in the monitoring plugins' range syntax: `80` alerts above 80,
/// `10:` below 10, `~:90` above 90, `10:20` outside 10..20, `@10:20` inside it. Each defaults
/// to the profile's `[check]` table in the config file.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Check mode (--format nagios, captop check)")]
pub struct CheckArgs {
    /// Warning range for each route's fill % [default: from the profile's warn_pct on].
    #[arg(short = 'w', long, value_name = "RANGE", global = true)]
    pub warning: Option<String>,

    /// Critical range for each route's fill % [default: from the profile's crit_pct on].
    #[arg(short = 'c', long, value_name = "RANGE", global = true)]
    pub critical: Option<String>,

    /// Warning range for today's utilization %.
    #[arg(long, value_name = "RANGE", global = true)]
    pub utilization_warning: Option<String>,

    /// Critical range for today's utilization %.
    #[arg(long, value_name = "RANGE", global = true)]
    pub utilization_critical: Option<String>,

    /// Warning range for the number of routes sold out (e.g. `0` warns from one on).
    #[arg(long, value_name = "RANGE", global = true)]
    pub sold_out_warning: Option<String>,

    /// Critical range for the number of routes sold out.
    #[arg(long, value_name = "RANGE", global = true)]
    pub sold_out_critical: Option<String>,

    /// Warning range for the free ports of all routes together (e.g. `100:` warns below 100).
    #[arg(long, value_name = "RANGE", global = true)]
    pub free_ports_warning: Option<String>,

    /// Critical range for the free ports of all routes together.
    #[arg(long, value_name = "RANGE", global = true)]
    pub free_ports_critical: Option<String>,

    /// Warning when a route is forecast to sell out within this many hours.
    #[arg(long, value_name = "HOURS", global = true)]
    pub sells_out_within_warning: Option<f64>,

    /// Critical when a route is forecast to sell out within this many hours.
    #[arg(long, value_name = "HOURS", global = true)]
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
    #[command(subcommand)]
    Auth(AuthCommand),
    /// Show or check the config file.
    #[command(subcommand)]
    Config(ConfigCommand),
    /// Run the simulated service standalone and print its base URL and key.
    DemoServer(DemoServerArgs),
    /// Print a shell completion script for bash, zsh, fish, elvish or PowerShell.
    Completions(CompletionsArgs),
    /// Print the manual page in roff: `captop man > captop.1`, then `man ./captop.1`.
    Man,
    /// Check mode for Nagios, Icinga and the like: `--once --format nagios` by another name.
    Check,
    /// Poll the service once for a whole team: relay its API to any number of readers and
    /// export the figures to Prometheus at /metrics.
    Serve(ServeArgs),
    /// Show or export the figures recorded over days.
    #[command(subcommand)]
    History(HistoryCommand),
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

/// `captop serve ...`: the relay's own options; the service, key, interval and budget come from
/// the shared options, profiles and config file as for the dashboard.
#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
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

/// Formats of the relay's log lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// `captop serve: message`, for a person.
    #[default]
    Text,
    /// One JSON object a line (`ts`, `level`, `msg`, fields), for journald or Loki.
    Json,
}
