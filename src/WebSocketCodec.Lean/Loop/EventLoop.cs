using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.InteropServices;
using WebSocketCodec.Lean.Native;

namespace WebSocketCodec.Lean.Loop;

/// <summary>
/// One event loop: a thread, an epoll instance, the connections it accepted, and one receive buffer they all share
/// (each read is parsed in place by the core before the next read reuses it). An iteration waits for readiness,
/// accepts, reads and dispatches, runs the requests other threads queued (the driver's turns, aborts, ends), then writes
/// every connection that produced output in the iteration once. The websockets' own timers turn in the loop's wheel
/// (<see cref="Timers"/>); deadlines of handshakes and refusals are checked every quarter second.
/// </summary>
internal sealed unsafe class EventLoop : IDisposable
{
    private const ulong ListenerToken = ulong.MaxValue;
    private const ulong WakeToken = ulong.MaxValue - 1;
    private const int MaxEvents = 512;
    private const int MaxAcceptsPerWake = 128;
    private static readonly long ScanInterval = Stopwatch.Frequency / 4;
    private static readonly long TrimInterval = Stopwatch.Frequency * 10;

    private readonly LeanServerCore _server;
    private readonly int _epoll;
    private readonly int _wakeFd;
    private readonly Thread _thread;
    private readonly EpollEvents _events = new(MaxEvents);
    private readonly ConcurrentQueue<LoopConnection> _requests = new();
    private readonly List<LoopConnection> _dirty = [];
    private readonly List<LoopConnection> _timed = [];
    private readonly List<int> _freed = [];
    private readonly Stack<int> _freeSlots = new();
    private LoopConnection?[] _slots = new LoopConnection?[256];
    private int _slotCount;
    private int _wakeRequested;
    private readonly object _wakeSync = new();
    private bool _closed;
    private volatile bool _stopping;
    private bool _listening;
    private volatile bool _stopListening;
    private CloseAllRequest? _closeAll;
    private readonly TaskCompletionSource _listenerReleased = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _nextScan;
    private long _nextTrim;
    private long _acceptPausedUntil;
    private int _loopThreadId;
    private readonly Action<Exception> _reportTimerFailure; // made once: a method group per iteration would allocate

    public EventLoop(LeanServerCore server, int index)
    {
        _server = server;
        ReceiveBuffer = GC.AllocateUninitializedArray<byte>(server.Options.ReceiveBufferSize, pinned: true);
        _epoll = Libc.epoll_create1(Libc.EPOLL_CLOEXEC);
        if (_epoll < 0)
        {
            throw new InvalidOperationException($"epoll_create1 failed (errno {Marshal.GetLastPInvokeError()}).");
        }

        _wakeFd = Libc.eventfd(0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC);
        if (_wakeFd < 0 || EpollEvents.Control(_epoll, Libc.EPOLL_CTL_ADD, _wakeFd, Libc.EPOLLIN, WakeToken) != 0)
        {
            int error = Marshal.GetLastPInvokeError();
            Libc.close(_epoll);
            throw new InvalidOperationException($"The loop's eventfd could not be set up (errno {error}).");
        }

        _thread = new Thread(Run) { IsBackground = true, Name = $"WebSocketCodec.Lean loop {index}" };
        Timers = new LoopTimers(Wake, () => IsOnLoop);
        _reportTimerFailure = server.ReportConnectionFailure;

        // The drivers' timers turn in this loop's wheel, unless the application chose its own clock.
        Session = server.Session.TimeProvider is null ? server.Session with { TimeProvider = Timers } : server.Session;
    }

    /// <summary>The timers of this loop's websockets.</summary>
    public LoopTimers Timers { get; }

    /// <summary>The session options of this loop's websockets: the server's, with the loop's timers.</summary>
    public WebSocketSessionOptions Session { get; }

    /// <summary>The receive buffer every connection of the loop reads into (pinned).</summary>
    public byte[] ReceiveBuffer { get; }

    public LeanServerCore Server => _server;

    /// <summary>The output chunks of this loop's connections.</summary>
    public ChunkPool Chunks { get; } = new();

    public int Epoll => _epoll;

    /// <summary>Whether the caller runs on this loop's thread.</summary>
    public bool IsOnLoop => Environment.CurrentManagedThreadId == _loopThreadId;

    public void Start()
    {
        _thread.Start();
    }

    /// <summary>Starts accepting from the shared listening socket (every loop waits on it; the kernel wakes one).</summary>
    public void Listen()
    {
        int error = EpollEvents.Control(_epoll, Libc.EPOLL_CTL_ADD, _server.ListenerFd, Libc.EPOLLIN | Libc.EPOLLEXCLUSIVE, ListenerToken);
        if (error != 0)
        {
            throw new InvalidOperationException($"The listening socket could not be watched (errno {error}).");
        }

        _listening = true;
    }

    /// <summary>Stops accepting (any thread): the loop takes the listening socket out of its epoll and never touches
    /// it again, so the server may close it once every loop has answered (its number may then be reused).</summary>
    /// <returns>Completes when the loop has let the listener go.</returns>
    public Task StopListeningAsync()
    {
        _stopListening = true;
        Wake();
        if (!_thread.IsAlive)
        {
            _listenerReleased.TrySetResult(); // a loop that never ran or ended holds nothing
        }

        return _listenerReleased.Task;
    }

    /// <summary>Starts the close of every websocket of the loop with <paramref name="status"/> (any thread; run on the
    /// loop).</summary>
    /// <returns>The websockets whose close started.</returns>
    public Task<List<WebSocketDriver>> CloseAllAsync(CloseStatus status, string reason)
    {
        var closing = new TaskCompletionSource<List<WebSocketDriver>>(TaskCreationOptions.RunContinuationsAsynchronously);
        Volatile.Write(ref _closeAll, new CloseAllRequest(status, reason, closing));
        Wake();
        if (!_thread.IsAlive)
        {
            closing.TrySetResult([]);
        }

        return closing.Task;
    }

    /// <summary>Queues <paramref name="connection"/>'s requests for the loop and wakes it. Any thread; on the loop
    /// no wake is needed: the loop runs its queue before it sleeps again.</summary>
    public void Enqueue(LoopConnection connection)
    {
        _requests.Enqueue(connection);
        if (!IsOnLoop)
        {
            Wake();
        }
    }

    /// <summary>Stops the loop (after the server closed its websockets) and waits for its thread.</summary>
    public void Stop()
    {
        _stopping = true;
        Wake();
        if (_thread.IsAlive && !IsOnLoop)
        {
            _thread.Join();
        }
    }

    /// <summary>Writes <paramref name="connection"/>'s output at the end of this iteration (on the loop).</summary>
    public void MarkDirty(LoopConnection connection)
    {
        if (!connection.IsDirty)
        {
            connection.IsDirty = true;
            _dirty.Add(connection);
        }
    }

    /// <summary>Checks <paramref name="connection"/>'s deadline with the others every quarter second (on the loop).</summary>
    public void Watch(LoopConnection connection)
    {
        if (!connection.IsWatched)
        {
            connection.IsWatched = true;
            _timed.Add(connection);
        }
    }

    /// <summary>Gives a closed connection's slot back at the end of the iteration (no stale event can reach a new
    /// connection in the same slot).</summary>
    public void Release(int slot) => _freed.Add(slot);

    public void Dispose()
    {
        lock (_wakeSync)
        {
            if (_closed)
            {
                return;
            }

            // A driver's timer may still ask for a turn: once the eventfd is closed its number may belong to another
            // socket, which must never receive the wake's 8 bytes.
            _closed = true;
            Libc.close(_wakeFd);
        }

        _events.Dispose();
        Libc.close(_epoll);
    }

    private void Wake()
    {
        if (Interlocked.Exchange(ref _wakeRequested, 1) == 0)
        {
            lock (_wakeSync)
            {
                if (!_closed)
                {
                    ulong one = 1;
                    Libc.write(_wakeFd, &one, sizeof(ulong));
                }
            }
        }
    }

    private void Run()
    {
        _loopThreadId = Environment.CurrentManagedThreadId;
        _nextScan = Stopwatch.GetTimestamp() + ScanInterval;
        _nextTrim = Stopwatch.GetTimestamp() + TrimInterval;
        while (!_stopping)
        {
            // Handshake and refusal deadlines are checked every quarter second while any is set, the websockets' timers
            // at their wheel's next tick, requests the loop queued itself at once; the chunk pool is trimmed every 10 s
            // while it holds chunks (an idle loop with nothing to do sleeps).
            int timeout = _timed.Count > 0 || _acceptPausedUntil != 0 ? 250 : Chunks.Retained > 0 ? 10_000 : -1;
            int timers = Timers.SleepMilliseconds();
            if (timers >= 0 && (timeout < 0 || timers < timeout))
            {
                timeout = timers;
            }

            if (!_requests.IsEmpty)
            {
                timeout = 0;
            }

            int count = Libc.epoll_wait(_epoll, _events.Pointer, MaxEvents, timeout);
            if (count < 0)
            {
                int error = Marshal.GetLastPInvokeError();
                if (error == Libc.EINTR)
                {
                    continue;
                }

                _server.ReportLoopFailure(new InvalidOperationException($"epoll_wait failed (errno {error})."));
                break;
            }

            // The eventfd is drained first, then the wake flag cleared, then flags and the queue are read. In that order
            // a wake either found the flag set (its request is read below) or writes the eventfd again. Cleared before
            // the drain, a wake in between was swallowed by the drain and left the flag set with nothing to read: every
            // later wake skipped the write and an idle loop slept through its stop.
            for (int i = 0; i < count; i++)
            {
                if (_events.Data(i) == WakeToken)
                {
                    ulong value;
                    Libc.read(_wakeFd, &value, sizeof(ulong));
                }
            }

            Interlocked.Exchange(ref _wakeRequested, 0); // a full fence: no read below moves ahead of it
            if (_stopListening && _listenerReleased.Task.IsCompleted is false)
            {
                ReleaseListener();
            }

            for (int i = 0; i < count; i++)
            {
                ulong token = _events.Data(i);
                uint events = _events.Events(i);
                if (token == ListenerToken)
                {
                    if (_listening)
                    {
                        Accept();
                    }
                }
                else if (token == WakeToken)
                {
                    continue; // drained above
                }
                else if (token < (ulong)_slotCount && _slots[token] is { } connection)
                {
                    RunGuarded(connection, events);
                }
            }

            Timers.RunDue(_reportTimerFailure);
            RunRequests();
            if (Volatile.Read(ref _closeAll) is not null && Interlocked.Exchange(ref _closeAll, null) is { } closeAll)
            {
                CloseAll(closeAll.Status, closeAll.Reason, closeAll.Done);
            }

            FlushDirty();
            long now = Stopwatch.GetTimestamp();
            if (now >= _nextTrim)
            {
                _nextTrim = now + TrimInterval;
                Chunks.Trim();
            }

            if (now >= _nextScan)
            {
                _nextScan = now + ScanInterval;
                Scan(now);
                FlushDirty();
            }

            foreach (int slot in _freed)
            {
                _slots[slot] = null;
                _freeSlots.Push(slot);
            }

            _freed.Clear();
        }

        ReleaseListener();
        Interlocked.Exchange(ref _closeAll, null)?.Done.TrySetResult([]); // asked as the loop ended: nothing to close

        // The server ended every websocket it could; what is left is torn down with the loop.
        for (int i = 0; i < _slotCount; i++)
        {
            _slots[i]?.CloseNow(reset: true);
        }
    }

    private void CloseAll(CloseStatus status, string reason, TaskCompletionSource<List<WebSocketDriver>> done)
    {
        var drivers = new List<WebSocketDriver>();
        for (int i = 0; i < _slotCount; i++)
        {
            if (_slots[i]?.OpenDriver is { } driver)
            {
                drivers.Add(driver);
                try
                {
                    _ = driver.CloseAsync(status, reason);
                }
                catch (Exception error)
                {
                    _server.ReportConnectionFailure(error);
                }
            }
        }

        done.TrySetResult(drivers);
    }

    private void ReleaseListener()
    {
        if (_listening)
        {
            _listening = false;
            EpollEvents.Control(_epoll, Libc.EPOLL_CTL_DEL, _server.ListenerFd, 0, 0);
        }

        _listenerReleased.TrySetResult();
    }

    private void RunGuarded(LoopConnection connection, uint events)
    {
        try
        {
            connection.OnEvents(events);
        }
        catch (Exception error)
        {
            // A bug below the driver (the driver itself reports a listener's failure as 1011): never the loop's end.
            _server.ReportConnectionFailure(error);
            connection.CloseNow(reset: true);
        }
    }

    private void RunRequests()
    {
        // Bounded: requests queued while these run wait for the next iteration (their wake is pending).
        for (int n = _requests.Count; n > 0 && _requests.TryDequeue(out LoopConnection? connection); n--)
        {
            try
            {
                connection.RunRequests();
            }
            catch (Exception error)
            {
                _server.ReportConnectionFailure(error);
                connection.CloseNow(reset: true);
            }
        }
    }

    private void FlushDirty()
    {
        // A write may complete a flush whose continuation appends and marks more: index, not foreach.
        for (int i = 0; i < _dirty.Count; i++)
        {
            LoopConnection connection = _dirty[i];
            connection.IsDirty = false;
            try
            {
                connection.SendMarked(); // may complete a flush: the driver (and a listener) run on here
            }
            catch (Exception error)
            {
                _server.ReportConnectionFailure(error);
                connection.CloseNow(reset: true);
            }
        }

        _dirty.Clear();
    }

    private void Scan(long now)
    {
        for (int i = _timed.Count - 1; i >= 0; i--)
        {
            LoopConnection connection = _timed[i];
            bool watched;
            try
            {
                watched = connection.CheckDeadline(now);
            }
            catch (Exception error)
            {
                _server.ReportConnectionFailure(error);
                connection.CloseNow(reset: true);
                watched = false;
            }

            if (!watched)
            {
                connection.IsWatched = false;
                _timed[i] = _timed[^1];
                _timed.RemoveAt(_timed.Count - 1);
            }
        }

        if (_acceptPausedUntil != 0 && now >= _acceptPausedUntil && _listening && !_stopListening)
        {
            _acceptPausedUntil = 0;
            EpollEvents.Control(_epoll, Libc.EPOLL_CTL_ADD, _server.ListenerFd, Libc.EPOLLIN | Libc.EPOLLEXCLUSIVE, ListenerToken);
        }
    }

    private void Accept()
    {
        byte* address = stackalloc byte[128];
        for (int n = 0; n < MaxAcceptsPerWake; n++)
        {
            uint length = 128;
            int fd = Libc.accept4(_server.ListenerFd, address, &length, Libc.SOCK_NONBLOCK | Libc.SOCK_CLOEXEC);
            if (fd < 0)
            {
                int error = Marshal.GetLastPInvokeError();
                if (error is Libc.EMFILE or Libc.ENFILE or Libc.ENOBUFS or Libc.ENOMEM)
                {
                    // Out of descriptors: stop watching the listener for a while rather than spin on it (the
                    // connections wait in the backlog).
                    EpollEvents.Control(_epoll, Libc.EPOLL_CTL_DEL, _server.ListenerFd, 0, 0);
                    _acceptPausedUntil = Stopwatch.GetTimestamp() + ScanInterval;
                    _server.ReportAcceptPaused(error);
                }

                return; // EAGAIN (another loop took it), or the listener closed
            }

            if (_server.TlsOptions is not null)
            {
                _server.ServeTls(fd, SocketAddresses.ToEndPoint(address, length));
                continue;
            }

            int slot = _freeSlots.Count > 0 ? _freeSlots.Pop() : NewSlot();
            var connection = new LoopConnection(this, fd, slot, SocketAddresses.ToEndPoint(address, length));
            int added = EpollEvents.Control(_epoll, Libc.EPOLL_CTL_ADD, fd, LoopConnection.ReadEvents, (ulong)slot);
            if (added != 0)
            {
                Libc.close(fd);
                _freeSlots.Push(slot);
                continue;
            }

            _slots[slot] = connection;
            connection.OnAccepted();
        }
    }

    private int NewSlot()
    {
        if (_slotCount == _slots.Length)
        {
            Array.Resize(ref _slots, _slots.Length * 2);
        }

        return _slotCount++;
    }

    private sealed record CloseAllRequest(CloseStatus Status, string Reason, TaskCompletionSource<List<WebSocketDriver>> Done);
}
