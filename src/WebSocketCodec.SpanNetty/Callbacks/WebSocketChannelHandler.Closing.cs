using System.Buffers;
using System.Buffers.Binary;
using System.Runtime.InteropServices;
using DotNetty.Buffers;
using DotNetty.Common.Concurrency;
using DotNetty.Transport.Channels;

namespace WebSocketCodec.SpanNetty;

// Closing: the close handshake, the end of our output and the bounded drain after a violation, the session's timers,
// and reporting the end.
public sealed partial class WebSocketChannelHandler
{
    private IScheduledTask? _timer;
    private bool _closing;
    private bool _outputEnded;
    private bool _finished;
    private bool _closeTimedOut;
    private bool _slowConsumer;
    private SlowConsumerWatch _slowWatch;
    private Exception? _error;

    /// <summary>
    /// The connection was failed (a violation, a failed callback; RFC 6455 §7.1.7): ends our output right behind the
    /// Close while the input is still read (and discarded) until the peer's end: on an HTTP/2 stream END_STREAM, on a
    /// socket a TCP half-close (FIN) once every byte before it, the Close's TLS record included, reached the socket; so
    /// the channel's close at the peer's end never resets the connection under our unread Close. A channel that cannot
    /// half-close keeps its output until it closes (SpanNetty's libuv transport has no output shutdown of its own: libuv's
/// is called, see <see cref="LibuvHalfClose"/>).
    /// </summary>
    private void EndOutput()
    {
        if (_outputEnded)
        {
            return;
        }

        _outputEnded = true;
        IChannelHandlerContext context = Context;
        if (context.Pipeline.Get<Http2StreamByteAdapter>() is { } stream)
        {
            stream.EndOutput(context.Pipeline.Context(stream));
            return;
        }

        // Once every byte before it reached the transport (our last write's; under TLS its record's network write, a
        // write's own completion meaning only that it was encrypted), the send side is shut down: SpanNetty's socket
        // channels can; its libuv channels cannot, and libuv's uv_shutdown is called instead.
        IChannel channel = context.Channel;
        Task written = context.Pipeline.Get<SslStreamHandler>() is { } tls ? tls.LastNetworkWrite : _output!.LastWrite;
        if (channel is IDuplexChannel duplex)
        {
            ChannelActions.RunAfter(context, written, () =>
            {
                if (duplex.IsActive)
                {
                    _ = duplex.ShutdownOutputAsync().ContinueWith(
                        static shut => _ = shut.Exception, // a connection already gone: nothing left to end
                        CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
                }
            });
        }
        else if (LibuvHalfClose.CanShutdown(channel))
        {
            ChannelActions.RunAfter(context, written, () => LibuvHalfClose.TryShutdown(channel));
        }
    }

    /// <summary>Our side starts the close handshake: a Close, then the peer's answer within the close timeout.</summary>
    private void StartClose(CloseStatus status, string? reason)
    {
        if (_finished || !_session.StartClose(status, reason))
        {
            return;
        }

        _output!.TrackWrites = true;
        _output.Flush();
        ArmTimer();
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
            _timer = Context.Executor.Schedule(static state => ((WebSocketChannelHandler)state).CloseChannel(), this, _session.Options.CloseTimeout);
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
        if (_session.State == WebSocketSessionState.Open)
        {
            due = SlowConsumerWatch.Earlier(due, _slowWatch.NextDue(_time, _session.Options.SlowConsumerTimeout));
        }

        if (due != Timeout.InfiniteTimeSpan)
        {
            _timer = Context.Executor.Schedule(static state => ((WebSocketChannelHandler)state).OnTimer(), this, due);
        }
    }

    private void OnTimer()
    {
        _timer = null;
        if (_finished || _session.State == WebSocketSessionState.Closed)
        {
            return;
        }

        SessionTimerResult result = _session.OnTimer();
        if (result == SessionTimerResult.None && _session.State == WebSocketSessionState.Open && !Context.Channel.IsWritable
            && _slowWatch.Check(_time, _session.Options.SlowConsumerTimeout, Progress(Context.Channel), out _))
        {
            // The peer took none of our output for the slow-consumer timeout: 1008, then the close timeout bounds the
            // rest.
            StartSlowConsumerClose(flush: false);
        }

        if (_session.State != WebSocketSessionState.Open)
        {
            _output!.TrackWrites = true;
        }

        _output!.Flush();
        if (result is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout)
        {
            GiveUp(); // the peer is gone or unresponsive
            return;
        }

        ArmTimer();
    }

    /// <summary>Gives up a peer that reads too slowly (the slow-consumer timeout, or a group's
    /// <see cref="SlowMemberPolicy.Close"/>): Close 1008 "slow consumer", then the close timeout bounds the rest. On the
    /// event loop.</summary>
    internal void StartSlowConsumerClose(bool flush)
    {
        if (_finished || _session.State != WebSocketSessionState.Open)
        {
            return;
        }

        _session.StartClose(CloseStatus.PolicyViolation, "slow consumer");
        _slowConsumer = true;
        WebSocketTelemetry.SlowConsumers.Add(1);
        ChannelActions.EnsureReading(Context); // the peer's answer must be read
        if (flush)
        {
            _output!.TrackWrites = true;
            _output.Flush();
            ArmTimer();
        }
    }

    private void CancelTimer()
    {
        _timer?.Cancel();
        _timer = null;
    }

    /// <summary>The peer is given up (keep-alive or close timeout, the drain's bound): the channel closes now, with
    /// whatever it could not write (a peer that does not read would otherwise hold it open).</summary>
    private void GiveUp()
    {
        _closeTimedOut |= _session.Timeout is SessionTimerResult.CloseTimeout;
        if (_context is null || _finished)
        {
            return;
        }

        _closing = true;
        CancelTimer();
        _output?.Flush();
        _ = _context.CloseAsync();
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
        _session.Dispose(); // returns a partly gathered frame's buffer, frees the inflater
        _sender?.FailWaiting();
        _sender?.ReleaseDeflater();
        _output?.Dispose();
        _sender?.InboxIfAny?.Abandon(); // group frames still queued go back to their pool
        if (_context is { Channel.IsActive: true } context)
        {
            _ = context.CloseAsync();
        }

        var info = WebSocketCloseInfo.From(_session, _closeTimedOut, _slowConsumer, aborted: false, _error);
        try
        {
            _listener?.OnClose(info);
        }
        finally
        {
            _completion.TrySetResult(info);
        }
    }

    /// <summary>The slow-consumer watch's progress figure: the bytes the channel's transport took so far (written to the
    /// channel, less those still pending), which grows only as the peer reads.</summary>
    private long Progress(IChannel channel) => (_output?.Written ?? 0) - ChannelActions.PendingBytes(channel);
}
