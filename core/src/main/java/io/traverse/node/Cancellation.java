package io.traverse.node;

/** Lets one thread stop a connection setup that another thread is blocked in (a socket closed during connect). */
public final class Cancellation {
    private Runnable action;
    private boolean cancelled;

    /** Registers what cancelling does; runs it at once if cancellation came first. */
    public void onCancel(Runnable cancelAction) {
        boolean runNow;
        synchronized (this) {
            action = cancelAction;
            runNow = cancelled;
        }
        if (runNow) {
            cancelAction.run();
        }
    }

    public void cancel() {
        Runnable toRun;
        synchronized (this) {
            cancelled = true;
            toRun = action;
        }
        if (toRun != null) {
            toRun.run();
        }
    }

    public synchronized boolean isCancelled() {
        return cancelled;
    }
}
