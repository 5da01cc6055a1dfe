//! The replay's own host while it runs: the CPU cutover used, and how busy the whole host was.
//!
//! A replay whose host runs out of CPU (a server on the same machine, or a client host too small for
//! the recorded load) measures what that host could drive, not what the servers can take: its pace
//! and latencies then say little about the target. The report says so, with what to do.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// From this share of busy time on, the host (or cutover's runtime thread) is taken as having run
/// out of CPU: what is left is what a loaded scheduler leaves idle between wake-ups.
pub const SATURATED: f64 = 0.9;

/// cutover's use of its host's CPU over the replay: from the start of the dispatch (the sessions
/// connect in the 200 ms before the first statement's turn) to the last result.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ClientCpu {
    /// Wall time measured over, seconds.
    pub wall_s: f64,
    /// CPU time of the cutover process (all its threads: the log's reader, the sessions, the
    /// comparison), seconds.
    pub user_s: f64,
    pub system_s: f64,
    /// Statements sent, both sides together, and the CPU time per statement (µs).
    pub statements: u64,
    pub us_per_statement: f64,
    /// Cores' worth of CPU the process used on average: (user + system) / wall time.
    pub cores: f64,
    /// The share of the wall time the runtime thread was busy, when the replay runs on one thread
    /// (a source-only replay): near 1 it could not have sent more. None on a multi-threaded
    /// runtime, or where the operating system does not tell (Linux only).
    pub runtime_thread_busy: Option<f64>,
    /// The host's CPUs, and the share of their time busy over the replay, all processes together (a
    /// server on the same host counts): Linux only (/proc/stat), None elsewhere.
    pub host_cpus: Option<u32>,
    pub host_busy: Option<f64>,
}

impl ClientCpu {
    /// Why the replay's host, rather than the servers, may have set the pace: its runtime thread or
    /// the whole host busy `SATURATED` of the time or more. None when neither was.
    pub fn out_of_cpu(&self) -> Option<String> {
        if let Some(t) = self.runtime_thread_busy.filter(|t| *t >= SATURATED) {
            return Some(format!(
                "cutover's runtime thread was busy {:.0}% of the time, so the replay client itself was the limit",
                t * 100.0
            ));
        }
        let busy = self.host_busy.filter(|b| *b >= SATURATED)?;
        Some(format!(
            "the replay's host was out of CPU: its {} busy {:.0}% of the time, cutover using {:.1} cores of them",
            match self.host_cpus {
                Some(1) => "1 CPU was".to_string(),
                Some(n) => format!("{n} CPUs were"),
                None => "CPUs were".to_string(),
            },
            busy * 100.0,
            self.cores
        ))
    }

    /// What to do about it.
    pub const ADVICE: &'static str = "run the replay from a host of its own (not the server's), or split it with --shard K/N over several hosts and `cutover merge` the results";

    /// Shards of one replay: CPU times and statements added up, the busiest host's figures kept.
    pub fn merge(&mut self, other: &ClientCpu) {
        self.wall_s = self.wall_s.max(other.wall_s);
        self.user_s += other.user_s;
        self.system_s += other.system_s;
        self.statements += other.statements;
        self.us_per_statement = per_statement(self.user_s + self.system_s, self.statements);
        self.cores += other.cores;
        self.runtime_thread_busy = max_of(self.runtime_thread_busy, other.runtime_thread_busy);
        if other.host_busy > self.host_busy {
            self.host_busy = other.host_busy;
            self.host_cpus = other.host_cpus;
        }
    }
}

fn per_statement(cpu_s: f64, statements: u64) -> f64 {
    if statements == 0 {
        0.0
    } else {
        cpu_s * 1e6 / statements as f64
    }
}

fn max_of(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// The counters at one moment; two of them give a `ClientCpu`.
pub(super) struct HostSample {
    at: Instant,
    /// Process user and system seconds.
    process: Option<(f64, f64)>,
    /// The calling thread's user + system seconds, when it is the runtime's only thread.
    thread: Option<f64>,
    /// Host busy and total ticks, and the number of CPUs.
    host: Option<(u64, u64, u32)>,
}

impl HostSample {
    /// `runtime_thread`: the caller runs on the runtime's only thread (tokio's current-thread
    /// runtime), so the thread's CPU time is the sessions'.
    pub(super) fn now(runtime_thread: bool) -> HostSample {
        HostSample {
            at: Instant::now(),
            process: rusage(libc::RUSAGE_SELF),
            thread: if runtime_thread {
                thread_rusage()
            } else {
                None
            },
            host: proc_stat(),
        }
    }

    /// From `start` to this sample, for `statements` statements sent.
    pub(super) fn since(&self, start: &HostSample, statements: u64) -> ClientCpu {
        let wall_s = self.at.saturating_duration_since(start.at).as_secs_f64();
        let (user_s, system_s) = match (self.process, start.process) {
            (Some((u1, s1)), Some((u0, s0))) => ((u1 - u0).max(0.0), (s1 - s0).max(0.0)),
            _ => (0.0, 0.0),
        };
        let share = |x: f64| {
            if wall_s > 0.0 {
                (x / wall_s).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        let (host_busy, host_cpus) = match (self.host, start.host) {
            (Some((b1, t1, n)), Some((b0, t0, _))) if t1 > t0 => (
                Some((b1.saturating_sub(b0) as f64 / (t1 - t0) as f64).clamp(0.0, 1.0)),
                Some(n),
            ),
            _ => (None, None),
        };
        ClientCpu {
            wall_s,
            user_s,
            system_s,
            statements,
            us_per_statement: per_statement(user_s + system_s, statements),
            cores: if wall_s > 0.0 {
                (user_s + system_s) / wall_s
            } else {
                0.0
            },
            runtime_thread_busy: match (self.thread, start.thread) {
                (Some(t1), Some(t0)) => Some(share(t1 - t0)),
                _ => None,
            },
            host_cpus,
            host_busy,
        }
    }
}

fn rusage(who: libc::c_int) -> Option<(f64, f64)> {
    // SAFETY: getrusage fills the struct it is given and reads nothing else.
    let mut r: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut r) } != 0 {
        return None;
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Some((secs(r.ru_utime), secs(r.ru_stime)))
}

#[cfg(target_os = "linux")]
fn thread_rusage() -> Option<f64> {
    rusage(libc::RUSAGE_THREAD).map(|(u, s)| u + s)
}

#[cfg(not(target_os = "linux"))]
fn thread_rusage() -> Option<f64> {
    None
}

/// The host's busy and total CPU ticks (all CPUs) and its number of CPUs, from /proc/stat.
fn proc_stat() -> Option<(u64, u64, u32)> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    parse_proc_stat(&text)
}

/// `cpu  user nice system idle iowait irq softirq steal …`: idle and iowait are the idle time;
/// the rest (steal included: time the hypervisor gave to others) was not the host's to use.
fn parse_proc_stat(text: &str) -> Option<(u64, u64, u32)> {
    let mut lines = text.lines();
    let first = lines.next()?;
    let mut fields = first.split_ascii_whitespace();
    if fields.next()? != "cpu" {
        return None;
    }
    let ticks: Vec<u64> = fields.take(8).map_while(|f| f.parse().ok()).collect();
    if ticks.len() < 4 {
        return None;
    }
    let total: u64 = ticks.iter().sum();
    let idle = ticks[3] + ticks.get(4).copied().unwrap_or(0);
    let cpus = lines
        .filter(|l| {
            l.strip_prefix("cpu")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .count() as u32;
    Some((total - idle, total, cpus.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_stat_gives_busy_and_total_ticks_and_the_cpus() {
        let text = "cpu  100 5 50 800 20 3 2 10 0 0\ncpu0 50 2 25 400 10 1 1 5 0 0\ncpu1 50 3 25 400 10 2 1 5 0 0\nintr 1 2 3\nctxt 5\n";
        assert_eq!(parse_proc_stat(text), Some((170, 990, 2)));
        assert_eq!(parse_proc_stat("intr 1 2\n"), None);
        assert_eq!(parse_proc_stat("cpu  1 2\n"), None);
    }

    #[test]
    fn a_busy_host_or_runtime_thread_is_named_and_an_idle_one_is_not() {
        let mut c = ClientCpu {
            cores: 0.7,
            host_cpus: Some(2),
            host_busy: Some(0.95),
            ..ClientCpu::default()
        };
        let why = c.out_of_cpu().expect("a host 95% busy is out of CPU");
        assert!(why.contains("2 CPUs were busy 95%"), "{why}");
        assert!(why.contains("0.7 cores"), "{why}");
        c.host_busy = Some(0.6);
        assert_eq!(c.out_of_cpu(), None);
        c.runtime_thread_busy = Some(0.97);
        assert!(c.out_of_cpu().is_some_and(|w| w.contains("runtime thread")));
    }

    #[test]
    fn the_process_s_cpu_time_over_a_busy_loop_is_measured() {
        let start = HostSample::now(true);
        let t = Instant::now();
        let mut x = 0u64;
        while t.elapsed().as_millis() < 200 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
        }
        std::hint::black_box(x);
        let c = HostSample::now(true).since(&start, 1000);
        assert!(c.user_s + c.system_s > 0.1, "{c:?}");
        assert!(c.cores > 0.5, "{c:?}");
        assert!((c.us_per_statement - (c.user_s + c.system_s) * 1e3).abs() < 1.0);
        if cfg!(target_os = "linux") {
            assert!(c.runtime_thread_busy.is_some_and(|b| b > 0.5), "{c:?}");
            assert!(
                c.host_busy.is_some_and(|b| b > 0.0) && c.host_cpus >= Some(1),
                "{c:?}"
            );
        }
    }

    #[test]
    fn shards_add_up_and_keep_the_busiest_host() {
        let mut a = ClientCpu {
            wall_s: 10.0,
            user_s: 3.0,
            system_s: 1.0,
            statements: 1000,
            cores: 0.4,
            host_cpus: Some(2),
            host_busy: Some(0.5),
            ..ClientCpu::default()
        };
        let b = ClientCpu {
            wall_s: 12.0,
            user_s: 1.0,
            system_s: 1.0,
            statements: 1000,
            cores: 0.2,
            host_cpus: Some(8),
            host_busy: Some(0.92),
            runtime_thread_busy: Some(0.3),
            ..ClientCpu::default()
        };
        a.merge(&b);
        assert_eq!(a.wall_s, 12.0);
        assert_eq!(a.statements, 2000);
        assert!((a.us_per_statement - 3000.0).abs() < 1e-6);
        assert_eq!((a.host_cpus, a.host_busy), (Some(8), Some(0.92)));
        assert_eq!(a.runtime_thread_busy, Some(0.3));
        assert!((a.cores - 0.6).abs() < 1e-9);
    }
}
