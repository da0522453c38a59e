//! Simulated threads: TID, CPU, the thread-local activity ID (EVT-14…EVT-16), simulated stack
//! frames, and which simulated thread an event write runs on.
//!
//! A write runs on the *current* simulated thread: the one [`Thread::enter`] bound to this OS
//! thread, if it belongs to the writing provider's process. Otherwise an implicit thread of
//! that process is used: in deterministic mode the process's main thread (CPU 0), so the
//! result never depends on the OS; in threaded mode one simulated thread per OS thread and
//! process, on CPUs assigned round-robin, stable for the OS thread's life.

use crate::api::process::Process;
use crate::data::local::WRITER_LOCAL;
use crate::data::local::with_current;
use crate::machine::thread::ThreadState;
use crate::machine::thread::invalidate_lanes;
use crate::{Error, Result};
use etwsim_types::Guid;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// `EVENT_ACTIVITY_CTRL_*` codes of EventActivityIdControl (EVT-15).
#[doc(alias = "EVENT_ACTIVITY_CTRL_GET_ID")]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ActivityControl {
    /// 1, `EVENT_ACTIVITY_CTRL_GET_ID`: out ← the thread's id.
    GetId = 1,
    /// 2, `EVENT_ACTIVITY_CTRL_SET_ID`: the thread's id ← in.
    SetId = 2,
    /// 3, `EVENT_ACTIVITY_CTRL_CREATE_ID`: out ← a new locally unique id.
    CreateId = 3,
    /// 4, `EVENT_ACTIVITY_CTRL_GET_SET_ID`: swap the thread's id and the argument.
    GetSetId = 4,
    /// 5, `EVENT_ACTIVITY_CTRL_CREATE_SET_ID`: out ← the thread's id, the thread's id ← new.
    CreateSetId = 5,
}

impl ActivityControl {
    /// From the raw code; `None` for others (rejected with `ERROR_INVALID_PARAMETER`, the
    /// project's choice for EVT-15's open case).
    pub fn from_raw(v: u32) -> Option<ActivityControl> {
        Some(match v {
            1 => ActivityControl::GetId,
            2 => ActivityControl::SetId,
            3 => ActivityControl::CreateId,
            4 => ActivityControl::GetSetId,
            5 => ActivityControl::CreateSetId,
            _ => return None,
        })
    }
}

/// A simulated thread of a simulated process. Clones share the thread.
#[derive(Clone, Debug)]
pub struct Thread {
    process: Process,
    pub(in crate::api) state: Arc<ThreadState>,
}

/// Keeps a simulated thread current on this OS thread until dropped ([`Thread::enter`]).
#[must_use = "the thread stays current only while the guard lives"]
#[derive(Debug)]
pub struct ThreadGuard {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for ThreadGuard {
    fn drop(&mut self) {
        let _ = WRITER_LOCAL.try_with(|l| {
            l.entered.borrow_mut().pop();
        });
        invalidate_lanes();
    }
}

impl Thread {
    pub(in crate::api) fn new(process: Process, tid: u32, cpu: u16) -> Thread {
        let state = Arc::new(ThreadState::new(
            process.kernel.id(),
            process.start_key,
            tid,
            cpu,
        ));
        Thread { process, state }
    }

    /// The thread id.
    pub fn tid(&self) -> u32 {
        self.state.tid
    }

    /// The CPU the thread runs on.
    pub fn cpu(&self) -> u16 {
        self.state.cpu.load(Ordering::Relaxed) as u16
    }

    /// The owning process.
    pub fn process(&self) -> &Process {
        &self.process
    }

    /// Moves the thread to another simulated CPU (BUF-11 experiments).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` if `cpu` does not exist.
    pub fn migrate(&mut self, cpu: u16) -> Result<()> {
        if cpu >= self.process.kernel.cpu_count() {
            return Err(Error::invalid(format!("CPU {cpu} does not exist")));
        }
        self.state.cpu.store(u32::from(cpu), Ordering::Relaxed);
        invalidate_lanes();
        Ok(())
    }

    /// Makes this the current simulated thread of the calling OS thread: writes by providers
    /// of its process run as it (TID, CPU, activity ID) until the guard drops.
    pub fn enter(&self) -> ThreadGuard {
        WRITER_LOCAL.with(|l| l.entered.borrow_mut().push(self.state.clone()));
        invalidate_lanes();
        ThreadGuard {
            _not_send: std::marker::PhantomData,
        }
    }

    /// The thread's activity ID (GUID_NULL when the thread is created, EVT-14).
    pub fn activity_id(&self) -> Guid {
        self.state.activity_id()
    }

    /// Sets the thread's activity ID.
    pub fn set_activity_id(&self, id: Guid) {
        self.state.set_activity_id(id);
    }

    /// The simulated return addresses stack-trace items carry (FLT-12), innermost first;
    /// an empty list makes the kernel synthesise a few frames.
    pub fn set_stack(&self, frames: &[u64]) {
        *self.state.stack.lock() = Arc::from(frames);
    }

    /// The thread ends: Thread End (KRN-09). Entering it afterwards still works for writes
    /// (the thread's ETW identity is kept), but it is no longer in the OS tables.
    pub fn exit(&self) {
        self.process
            .kernel
            .os_thread_exited(self.process.start_key, self.state.tid);
    }

    /// EventActivityIdControl on this thread (EVT-15).
    pub fn activity_id_control(&self, code: ActivityControl, id: &mut Guid) {
        activity_control(&self.state, &self.process.kernel, code, id);
    }
}

pub(in crate::api) fn activity_control(
    t: &ThreadState,
    kernel: &crate::Kernel,
    code: ActivityControl,
    id: &mut Guid,
) {
    match code {
        ActivityControl::GetId => *id = t.activity_id(),
        ActivityControl::SetId => t.set_activity_id(*id),
        ActivityControl::CreateId => *id = kernel.new_local_activity_id(),
        ActivityControl::GetSetId => {
            let prev = t.activity_id();
            t.set_activity_id(*id);
            *id = prev;
        }
        ActivityControl::CreateSetId => {
            *id = t.activity_id();
            t.set_activity_id(kernel.new_local_activity_id());
        }
    }
}

impl Process {
    /// EventActivityIdControl as this process calls it: on the current simulated thread of
    /// this process on the calling OS thread (see the module docs) (EVT-15).
    pub fn activity_id_control(&self, code: ActivityControl, id: &mut Guid) {
        with_current(&self.kernel, self.start_key, |t| {
            activity_control(t, &self.kernel, code, id)
        });
    }
}

impl Process {
    /// Starts a simulated thread of this process on simulated CPU `cpu`.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` if `cpu` is not below the kernel's CPU count or the process
    /// has exited.
    pub fn spawn_thread(&self, cpu: u16) -> Result<Thread> {
        if cpu >= self.kernel.cpu_count() {
            return Err(Error::invalid(format!(
                "CPU {cpu} does not exist (the kernel has {})",
                self.kernel.cpu_count()
            )));
        }
        let tid = self.kernel.with_state_mut(|s| {
            let rec = s.processes.get(&self.start_key)?;
            if rec.exited {
                return None;
            }
            Some(s.processes.next_client_id())
        });
        let tid = tid.ok_or_else(|| Error::invalid(format!("process {} has exited", self.pid)))?;
        // KRN-09: Thread Start.
        self.kernel.os_thread_started(self.start_key, tid, cpu);
        Ok(Thread::new(self.clone(), tid, cpu))
    }
}
