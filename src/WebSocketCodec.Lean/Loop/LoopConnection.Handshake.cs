using System.Buffers;
using System.Diagnostics;
using System.Runtime.InteropServices;
using WebSocketCodec.Lean.Native;

namespace WebSocketCodec.Lean.Loop;

// The opening handshake on the loop: the head parsed in place, the core's decision, the 101 or the refusal.
internal sealed partial class LoopConnection
{
    private unsafe void ReadHead()
    {
        int max = Server.Accept.MaxRequestHeadLength;
        Span<byte> target = _head is null ? _loop.ReceiveBuffer : _head.AsSpan(_headLength);
        nint read;
        fixed (byte* start = target)
        {
            read = Libc.recv(_fd, start, target.Length, 0);
        }

        if (read <= 0)
        {
            if (read < 0 && Marshal.GetLastPInvokeError() is Libc.EAGAIN or Libc.EINTR)
            {
                return;
            }

            CloseNow(reset: false); // gone before a complete head: nothing to answer
            return;
        }

        Span<byte> received;
        if (_head is null)
        {
            received = _loop.ReceiveBuffer.AsSpan(0, (int)read);
        }
        else
        {
            _headLength += (int)read;
            received = _head.AsSpan(0, _headLength);
        }

        OperationStatus status = HttpHeadParser.TryParse(received, out HttpHead? head, out int headLength, out HttpHeadError error, max);
        if (status == OperationStatus.InvalidData)
        {
            Refuse(HandshakeFailure.From(error));
            return;
        }

        if (status == OperationStatus.NeedMoreData)
        {
            if (_head is null)
            {
                // Incomplete: only now does the connection get a buffer of its own (the head's bound, plus the frames
                // a client may send right behind it in the same read).
                _head = ArrayPool<byte>.Shared.Rent(max + SocketOutput.ChunkSize);
                received.CopyTo(_head);
                _headLength = received.Length;
            }

            return;
        }

        OnHead(head!, received[headLength..]);
        ReturnHead(); // the bytes behind the head were handed to the websocket
    }

    private void OnHead(HttpHead head, Span<byte> behind)
    {
        LeanServerCore server = Server;
        WebSocketAcceptDecision decision = server.Decide(head, out bool admitted);
        if (!decision.IsAccepted)
        {
            server.Leave(admitted);
            Refuse(decision);
            return;
        }

        var driver = new WebSocketDriver(this, WebSocketRole.Server, _loop.Session, decision.Subprotocol);
        if (decision.Deflate is { } deflate)
        {
            driver.EnablePerMessageDeflate(deflate, server.Accept.Deflate!);
        }

        // The 101 is in the output before the application sees the sender: a frame it sends from the factory (or from
        // a task the factory starts) goes out behind it. Nothing is sent before the end of this iteration, so a
        // factory that throws takes the 101 back: the output is dropped and the refusal written instead.
        lock (this)
        {
            Http1Handshake.WriteResponse(this, decision);
            _output.MarkFlushed();
        }

        IWebSocketFrameListener listener;
        try
        {
            listener = server.CreateListener(new LeanWebSocketRequest(head, decision, _remote, isSecure: false), driver.Sender);
        }
        catch (Exception error)
        {
            server.Leave(admitted);
            server.ReportConnectionFailure(error);
            lock (this)
            {
                _output.Release();
            }

            Refuse(new HandshakeFailure(500, "The server failed to accept the websocket."));
            return;
        }

        _admitted = admitted; // left when the websocket ends (IWebSocketTransport.OnEnded)
        _remote = null;
        _driver = driver;
        _state = State.Open;
        Flush(); // the 101 goes out with whatever the websocket's first read produces
        server.OnWebSocketOpened();
        driver.Start(listener);
        if (!behind.IsEmpty)
        {
            driver.Receive(behind); // frames the client sent right behind its request
            driver.ReadComplete();
        }
    }

    private void Refuse(HandshakeFailure failure) => Refuse(WebSocketAcceptDecision.Refuse(failure));

    /// <summary>Answers a refusal, ends our direction once it is sent, and drains the input briefly (bounded in bytes
    /// and time) so the answer is not erased by a reset.</summary>
    private void Refuse(WebSocketAcceptDecision decision)
    {
        ReturnHead();
        _state = State.Refusing;
        lock (this)
        {
            Http1Handshake.WriteResponse(this, decision);
            _endRequested = true;
        }

        Flush();
        _deadline = Stopwatch.GetTimestamp() + RefusalDrainTime;
        _loop.Watch(this);
    }

    private unsafe void DrainAfterRefusal()
    {
        byte[] buffer = _loop.ReceiveBuffer;
        nint read;
        fixed (byte* start = buffer)
        {
            read = Libc.recv(_fd, start, buffer.Length, 0);
        }

        if (read < 0 && Marshal.GetLastPInvokeError() is Libc.EAGAIN or Libc.EINTR)
        {
            return;
        }

        _drained += (int)Math.Max(read, 0);
        if (read <= 0 || _drained >= MaxRefusalDrain)
        {
            CloseNow(reset: false);
        }
    }

    /// <summary>Marks what was written for sending: at the end of the loop's iteration.</summary>
    private void Flush()
    {
        lock (this)
        {
            _output.MarkFlushed();
        }

        _loop.MarkDirty(this);
    }
}
