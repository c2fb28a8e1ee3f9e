//! What a workload measures, and the one line it prints.
//!
//! CPU time is the process's (`CLOCK_PROCESS_CPUTIME_ID`, through the `cpu-time`
//! crate): every thread a runtime starts is charged to it. Wall time is `Instant`.
//! Memory is the heap the process holds, counted by the allocator below.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use cpu_time::ProcessTime;

/// Bytes the process holds on the heap right now (allocated minus freed).
static LIVE: AtomicIsize = AtomicIsize::new(0);

/// Hands every request to [`System`] and keeps [`LIVE`] up to date. One relaxed
/// atomic add per call, the same for every runtime measured.
pub struct CountingAllocator;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged, so
// `System`'s guarantees are the caller's; the counter is a plain atomic and never
// allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `alloc`'s contract (non-zero size), passed on.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was returned by this allocator (so by `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` and `layout` come from this allocator; `new_size` is the caller's.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            LIVE.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        new
    }
}

/// Heap bytes held by the process now.
pub fn live_bytes() -> isize {
    LIVE.load(Ordering::Relaxed)
}

/// A started measurement of CPU and wall time.
pub struct Meter {
    cpu: ProcessTime,
    wall: Instant,
}

/// What one workload measured, per operation.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// CPU per operation, in the row's unit.
    pub cpu: f64,
    /// Wall time per operation, in the row's unit.
    pub wall: f64,
}

impl Meter {
    /// Starts both clocks.
    pub fn start() -> Self {
        Self {
            cpu: ProcessTime::now(),
            wall: Instant::now(),
        }
    }

    /// Stops both clocks; each figure is divided by `ops` and by `scale` nanoseconds
    /// (1 for ns, 1e3 for µs, 1e6 for ms).
    pub fn stop(self, ops: u64, scale: f64) -> Sample {
        let cpu = self.cpu.elapsed().as_nanos() as f64;
        let wall = self.wall.elapsed().as_nanos() as f64;
        let per = ops as f64 * scale;
        Sample {
            cpu: cpu / per,
            wall: wall / per,
        }
    }
}

/// A memory figure: the same number in both columns.
pub fn bytes_per(before: isize, after: isize, count: usize) -> Sample {
    let per = (after - before) as f64 / count as f64;
    Sample {
        cpu: per,
        wall: per,
    }
}

/// The one line a workload prints, which the runner parses.
pub fn result_line(workload: &str, runtime: &str, sample: Sample) -> String {
    format!(
        "RESULT workload={workload} runtime={runtime} cpu={:.3} wall={:.3}",
        sample.cpu, sample.wall
    )
}

/// Parses a [`result_line`] back: (workload, runtime, sample).
pub fn parse_result(line: &str) -> Option<(String, String, Sample)> {
    let rest = line.strip_prefix("RESULT ")?;
    let mut workload = None;
    let mut runtime = None;
    let mut cpu = None;
    let mut wall = None;
    for field in rest.split_whitespace() {
        let (key, value) = field.split_once('=')?;
        match key {
            "workload" => workload = Some(value.to_string()),
            "runtime" => runtime = Some(value.to_string()),
            "cpu" => cpu = value.parse().ok(),
            "wall" => wall = value.parse().ok(),
            _ => {}
        }
    }
    Some((
        workload?,
        runtime?,
        Sample {
            cpu: cpu?,
            wall: wall?,
        },
    ))
}
