using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty;

// Closing: the close handshake, the bounded drain after a violation, the session's timers, and reporting the end.
public sealed partial class WebSocketCallbacksHandler
{
    private IScheduledTask? _timer;
    private bool _draining;
    private bool _probeForClose;
    private long _drained;
    private bool _closing;
    private bool _finished;
    private bool _closeTimedOut;
    private ushort? _drainedCloseStatus;
    private Exception? _error;

    /// <summary>Our side starts the close handshake: a Close, then the peer's answer within the close timeout.</summary>
    private void StartClose(ushort status, string? reason)
    {
        if (_finished || !_session.StartClose(status, reason))
        {
            return;
        }

        _output!.TrackWrites = true;
        _output.Flush();
        ArmTimer();
    }

    /// <summary>The application threw in a callback: Close 1011, then the closing sequence as for a violation.</summary>
    private void FailApplication(Exception error)
    {
        _error ??= error;
        _session.StartClose((ushort)CloseStatus.InternalError, "internal error");
        StartDrain(probeForClose: true);
    }

    /// <summary>After our Close for a violation (or an application failure): send it at once, then read and discard
    /// until the peer's Close or FIN, within the close timeout and <see cref="WebSocketChannelOptions.MaxDrainBytes"/>.</summary>
    private void StartDrain(bool probeForClose)
    {
        _draining = true;
        _probeForClose = probeForClose;
        _output!.TrackWrites = true;
        _output.Flush();
        ChannelActions.EnsureReading(Context);
        CancelTimer();
        _timer = Context.Executor.Schedule(
            static state => ((WebSocketCallbacksHandler)state).OnDrainTimeout(), this, _session.Options.CloseTimeout);
    }

    private void Drain(IByteBuffer buffer)
    {
        int length = buffer.ReadableBytes;
        bool sawClose = _probeForClose && StartsWithClose(buffer, out _drainedCloseStatus);
        _drained += length;
        if (sawClose)
        {
            CloseChannel();
        }
        else if (_drained >= _options.MaxDrainBytes)
        {
            _closeTimedOut = true;
            CloseChannel();
        }
    }

    private void OnDrainTimeout()
    {
        _closeTimedOut = !_finished;
        CloseChannel();
    }

    /// <summary>Whether a read that starts on a frame boundary holds a Close (the peer's answer to ours), and its
    /// status (1005 when it has none).</summary>
    private bool StartsWithClose(IByteBuffer buffer, out ushort? status)
    {
        status = null;
        Span<byte> copy = stackalloc byte[512];
        int length = Math.Min(buffer.ReadableBytes, copy.Length);
        buffer.GetBytes(buffer.ReaderIndex, copy.Slice(0, length));
        var probe = new FrameDecoder(Role, new FrameDecoderOptions { ValidateUtf8 = false });
        Span<byte> rest = copy.Slice(0, length);
        while (probe.ReadFrame(rest, out FrameHeader header, out Span<byte> payload, out _) == OperationStatus.Done)
        {
            if (header.Opcode == WebSocketOpcode.Close)
            {
                status = payload.Length >= 2 ? BinaryPrimitives.ReadUInt16BigEndian(payload) : (ushort)CloseStatus.NoStatusReceived;
                return true;
            }

            rest = rest.Slice((int)header.FrameLength);
        }

        return false;
    }

    /// <summary>The peer's Close arrived and the session answered it (or it answered ours).</summary>
    private void OnClosedByPeer()
    {
        _output!.TrackWrites = true;
        _output.Flush();
        CancelTimer();
        if (Role == WebSocketRole.Server)
        {
            CloseChannel(); // RFC 6455 §7.1.1: the server closes the TCP connection first
        }
        else
        {
            // The client waits (bounded) for the server's FIN.
            _timer = Context.Executor.Schedule(static state => ((WebSocketCallbacksHandler)state).CloseChannel(), this, _session.Options.CloseTimeout);
        }
    }

    private void ArmTimer()
    {
        CancelTimer();
        if (_finished)
        {
            return;
        }

        TimeSpan due = _session.NextTimerDue;
        if (due != Timeout.InfiniteTimeSpan)
        {
            _timer = Context.Executor.Schedule(static state => ((WebSocketCallbacksHandler)state).OnTimer(), this, due);
        }
    }

    private void OnTimer()
    {
        _timer = null;
        if (_finished || _draining || _session.State == WebSocketSessionState.Closed)
        {
            return;
        }

        SessionTimerResult result = _session.OnTimer();
        if (_session.State != WebSocketSessionState.Open)
        {
            _output!.TrackWrites = true;
        }

        _output!.Flush();
        if (result is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout)
        {
            CloseChannel(); // the peer is gone or unresponsive
            return;
        }

        ArmTimer();
    }

    private void CancelTimer()
    {
        _timer?.Cancel();
        _timer = null;
    }

    /// <summary>Closes the channel once what was written has left (closing at once would drop unsent frames).</summary>
    private void CloseChannel()
    {
        if (_closing || _context is null)
        {
            return;
        }

        _closing = true;
        CancelTimer();
        ChannelActions.CloseAfter(_context, _output?.LastWrite ?? Task.CompletedTask);
    }

    /// <summary>Ends the websocket once: returns the buffers, reports how it ended.</summary>
    private void Finish()
    {
        if (_finished)
        {
            return;
        }

        _finished = true;
        _closing = true;
        CancelTimer();
        _session.Abort(); // returns a partly gathered frame's buffer
        _output?.Dispose();
        if (_context is { Channel.IsActive: true } context)
        {
            _ = context.CloseAsync();
        }

        var info = new WebSocketCloseInfo(
            _session.ReceivedCloseStatus ?? _drainedCloseStatus, _session.ReceivedCloseReason, _session.SentCloseStatus,
            _session.Violation, _session.Timeout ?? (_closeTimedOut ? SessionTimerResult.CloseTimeout : null), _error);
        try
        {
            _callbacks?.OnClose(info);
        }
        finally
        {
            _completion.TrySetResult(info);
        }
    }
}
