using System.Buffers;
using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Runtime.InteropServices;
using WebSocketCodec.Lean.Native;

namespace WebSocketCodec.Lean.Loop;

/// <summary>
/// One accepted connection of an <see cref="EventLoop"/>: its opening handshake (the head parsed from the loop's
/// receive buffer, copied only while incomplete), then its websocket as a host of the core's driver: each read goes
/// from the shared buffer straight into <see cref="WebSocketDriver.Receive(Span{byte})"/>, which parses it in place
/// and keeps only a partial frame. Everything on the socket's descriptor happens under the connection's lock (the
/// object itself: one object fewer per websocket) and only while it is open; the descriptor is closed on the loop.
/// </summary>
internal sealed partial class LoopConnection
{
    /// <summary>What a reading connection waits for.</summary>
    public const uint ReadEvents = Libc.EPOLLIN | Libc.EPOLLRDHUP;

    private const int RequestTurn = 1;
    private const int RequestAbort = 2;
    private const int RequestEnded = 4;
    private const int RequestSend = 8;
    private const int MaxRefusalDrain = 64 * 1024;
    private static readonly long RefusalDrainTime = Stopwatch.Frequency;       // 1 s, as the Pipelines handshake
    private static readonly long ClosingLinger = Stopwatch.Frequency * 2;      // unsent bytes after the end

    private readonly EventLoop _loop;
    private readonly int _slot;
    private SocketOutput _output; // a struct, used in place
    private IPEndPoint? _remote; // until the handshake hands it to the application
    private int _fd;
    private State _state;
    private uint _mask = ReadEvents;   // the events registered with epoll
    private bool _registered = true;
    private bool _readsOff;            // reading paused lazily, stopped, or the input ended
    private bool _inputEnded;
    private bool _stoppedReading;
    private volatile bool _paused;
    private byte[]? _head;
    private int _headLength;
    private long _deadline;
    private int _drained;
    private int _requests;
    private WebSocketDriver? _driver;
    private bool _admitted;

    public LoopConnection(EventLoop loop, int fd, int slot, IPEndPoint? remote)
    {
        _loop = loop;
        _output = new SocketOutput(loop.Chunks);
        _fd = fd;
        _slot = slot;
        _remote = remote;
    }

    private enum State
    {
        Handshake,
        Refusing,
        Open,
        Ending,
        Closed,
    }

    /// <summary>The websocket while it runs (loop only).</summary>
    public WebSocketDriver? OpenDriver => _state == State.Open ? _driver : null;

    /// <summary>Whether the loop writes this connection's output at the end of the iteration (loop only).</summary>
    public bool IsDirty { get; set; }

    /// <summary>Whether the loop checks this connection's deadline (loop only).</summary>
    public bool IsWatched { get; set; }

    private LeanServerCore Server => _loop.Server;

    public unsafe void OnAccepted()
    {
        Server.OnConnectionOpened();
        int on = 1;
        Libc.setsockopt(_fd, Libc.IPPROTO_TCP, Libc.TCP_NODELAY, &on, sizeof(int));
        TimeSpan timeout = Server.Accept.HandshakeTimeout;
        _deadline = timeout == Timeout.InfiniteTimeSpan || timeout >= TimeSpan.FromDays(1)
            ? long.MaxValue // no deadline
            : Stopwatch.GetTimestamp() + (long)(timeout.TotalSeconds * Stopwatch.Frequency);
        _loop.Watch(this);
    }

    /// <summary>Handles what epoll reported (on the loop).</summary>
    public void OnEvents(uint events)
    {
        if ((events & (Libc.EPOLLOUT | Libc.EPOLLERR | Libc.EPOLLHUP)) != 0 && (_mask & Libc.EPOLLOUT) != 0)
        {
            SendMarked();
        }

        if (_state == State.Closed)
        {
            return;
        }

        if ((events & (Libc.EPOLLIN | Libc.EPOLLRDHUP | Libc.EPOLLERR | Libc.EPOLLHUP)) == 0)
        {
            return;
        }

        switch (_state)
        {
            case State.Handshake:
                ReadHead();
                break;
            case State.Refusing:
                DrainAfterRefusal();
                break;
            case State.Open:
            case State.Ending:
                ReadFrames(events);
                break;
        }
    }

    /// <summary>Runs what other threads asked for (on the loop).</summary>
    public void RunRequests()
    {
        int requests = Interlocked.Exchange(ref _requests, 0);
        if ((requests & RequestAbort) != 0)
        {
            CloseNow(reset: true);
        }

        if ((requests & RequestTurn) != 0)
        {
            _driver?.RunTurn(); // also after the close: the driver may still have its end to run
        }

        if ((requests & RequestEnded) != 0)
        {
            OnEnded();
        }

        if ((requests & RequestSend) != 0)
        {
            _loop.MarkDirty(this); // written with the loop's other output at the end of this iteration
        }
    }

    /// <summary>Checks the deadline of a handshake, a refusal or a closing connection (on the loop).</summary>
    /// <returns>Whether the connection still has a deadline.</returns>
    public bool CheckDeadline(long now)
    {
        switch (_state)
        {
            case State.Handshake when now >= _deadline:
                // Answered as Kestrel answers its request-headers timeout, so a client that is only slow learns why.
                Refuse(new HandshakeFailure(408, "No complete request head in time."));
                return true;
            case State.Handshake:
                return true;
            case State.Refusing:
            case State.Ending:
                if (now >= _deadline)
                {
                    CloseNow(reset: _state == State.Ending);
                    return false;
                }

                return true;
            default:
                return false;
        }
    }

    /// <summary>Closes the descriptor (on the loop): with a reset when the peer is given up. A websocket whose input
    /// had not ended learns that its transport is gone.</summary>
    public unsafe void CloseNow(bool reset)
    {
        bool completeFlush;
        lock (this)
        {
            if (_fd < 0)
            {
                return;
            }

            if (reset)
            {
                long linger = 1; // struct linger { l_onoff = 1, l_linger = 0 }: close sends RST
                Libc.setsockopt(_fd, Libc.SOL_SOCKET, Libc.SO_LINGER, &linger, sizeof(long));
            }

            Libc.close(_fd);
            _fd = -1;
            _output.Release();
            completeFlush = TakePendingFlushLocked();
        }

        ReturnHead();
        _loop.Release(_slot);
        Server.OnConnectionClosed();
        State was = _state;
        _state = State.Closed;
        if (completeFlush)
        {
            _flush.SetResult(false);
        }

        if (_driver is { } driver)
        {
            if (!_inputEnded && was == State.Open)
            {
                _inputEnded = true;
                driver.InputEnded(new IOException("The connection was closed.", new SocketException((int)SocketError.ConnectionAborted)));
            }
        }
    }

    private void Request(int request)
    {
        if (Interlocked.Or(ref _requests, request) == 0)
        {
            _loop.Enqueue(this);
        }
    }

    private unsafe void ReadFrames(uint events)
    {
        WebSocketDriver driver = _driver!;
        if (_paused || _stoppedReading || _inputEnded)
        {
            // Paused lazily: epoll stops reporting input only when some arrives while paused.
            lock (this)
            {
                _readsOff = true;
                UpdateInterestLocked(events);
            }

            return;
        }

        byte[] buffer = _loop.ReceiveBuffer;
        nint read;
        fixed (byte* start = buffer)
        {
            read = Libc.recv(_fd, start, buffer.Length, 0);
        }

        if (read > 0)
        {
            driver.Receive(buffer.AsSpan(0, (int)read));
            driver.ReadComplete();
            return;
        }

        int error = read < 0 ? Marshal.GetLastPInvokeError() : 0;
        if (read < 0 && error is Libc.EAGAIN or Libc.EINTR)
        {
            return;
        }

        _inputEnded = true;
        lock (this)
        {
            _readsOff = true;
            UpdateInterestLocked(0);
        }

        if (read == 0)
        {
            driver.InputEnded(); // the peer's FIN (a Close missing is the driver's 1006)
        }
        else
        {
            driver.InputEnded(new IOException("The connection failed.", new SocketException(error)));
        }
    }

    /// <summary>The websocket has ended (any thread): it leaves the cap and the count at once; the loop closes the
    /// descriptor once our last bytes are sent. The driver's word, not a continuation on its completion: an open
    /// websocket keeps no delegate for its end.</summary>
    void IWebSocketTransport.OnEnded(WebSocketCloseInfo info)
    {
        try
        {
            Server.OnWebSocketEnded(_admitted);
        }
        finally
        {
            Request(RequestEnded); // the connection closes whatever the count says
        }
    }

    private void OnEnded()
    {
        if (_state == State.Closed)
        {
            return;
        }

        _state = State.Ending;
        bool drained;
        lock (this)
        {
            _output.MarkFlushed();
            drained = _fd < 0 || _output.Unsent == 0;
        }

        if (drained)
        {
            CloseNow(reset: false);
            return;
        }

        // Our last bytes are still leaving: close once they are sent, or give the peer up after a while.
        _deadline = Stopwatch.GetTimestamp() + ClosingLinger;
        _loop.Watch(this);
    }

    /// <summary>Keeps epoll's registration in line with what the connection waits for: input unless reading is off,
    /// output while unsent bytes wait. A connection that waits for nothing and whose socket reports an error or hang-up
    /// (reported whatever the mask) is taken out of epoll until it waits for something again.</summary>
    private void UpdateInterestLocked(uint reported)
    {
        if (_fd < 0)
        {
            return;
        }

        uint wanted = (_readsOff ? 0 : ReadEvents) | (_output.Unsent > 0 ? Libc.EPOLLOUT : 0);
        if (wanted == 0 && (reported & (Libc.EPOLLERR | Libc.EPOLLHUP)) != 0)
        {
            if (_registered)
            {
                EpollEvents.Control(_loop.Epoll, Libc.EPOLL_CTL_DEL, _fd, 0, 0);
                _registered = false;
            }

            _mask = 0;
            return;
        }

        if (!_registered)
        {
            if (wanted != 0 && EpollEvents.Control(_loop.Epoll, Libc.EPOLL_CTL_ADD, _fd, wanted, (ulong)_slot) == 0)
            {
                _registered = true;
                _mask = wanted;
            }

            return;
        }

        if (wanted != _mask)
        {
            EpollEvents.Control(_loop.Epoll, Libc.EPOLL_CTL_MOD, _fd, wanted, (ulong)_slot);
            _mask = wanted;
        }
    }

    private void ReturnHead()
    {
        if (_head is { } head)
        {
            _head = null;
            ArrayPool<byte>.Shared.Return(head);
        }
    }
}
