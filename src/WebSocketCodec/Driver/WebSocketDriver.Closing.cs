using System.Diagnostics;

namespace WebSocketCodec;

// Closing: timers, the wait for the server's end, ending the output, and reporting the end.
public sealed partial class WebSocketDriver
{
    /// <summary>After the close exchange, as a client: RFC 6455 §7.1.1 has the server close the TCP connection first,
    /// so input is discarded until its end, for at most the close timeout and
    /// <see cref="WebSocketSessionOptions.MaxDrainBytes"/>; running out of either counts as a close timeout.</summary>
    private void AwaitServerEnd()
    {
        _awaitingEnd = true;
        _drainedAtEnd = 0;
        _output.Flush();
        if (Volatile.Read(ref _readPaused) != 0)
        {
            Volatile.Write(ref _readPaused, 0);
            _transport.ResumeReading();
        }

        lock (_output.Sync)
        {
            _timerDue = false;
            _timer ??= _time.CreateTimer(static state => ((WebSocketDriver)state!).OnTimerFired(), this,
                Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            _timer.Change(_session.Options.CloseTimeout, Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>Arms the timer for the next of the session's timers and the slow-consumer deadline; the caller holds
    /// the output's lock.</summary>
    private void ArmTimer()
    {
        if (_finished || _awaitingEnd)
        {
            return;
        }

        _armedForClose = _session.State == WebSocketSessionState.CloseSent;
        TimeSpan due = _session.NextTimerDue;
        if (_session.State == WebSocketSessionState.Open)
        {
            due = SlowConsumerWatch.Earlier(due, _slowWatch.NextDue(_time, _session.Options.SlowConsumerTimeout));
        }

        if (due == Timeout.InfiniteTimeSpan)
        {
            _timer?.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            return;
        }

        _timer ??= _time.CreateTimer(static state => ((WebSocketDriver)state!).OnTimerFired(), this,
            Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        _timer.Change(due, Timeout.InfiniteTimeSpan);
    }

    /// <summary>A timer is due: the loop runs it at its next turn, whether it waits for input or for the output to
    /// drain.</summary>
    private void OnTimerFired()
    {
        Interlocked.Increment(ref _timerFirings);
        _timerDue = true;
        _transport.ScheduleTurn();
    }

    /// <summary>A figure that grows whenever the peer takes bytes: those the transport took from us, and those it
    /// received of what the transport had taken (where the transport can see it, <see cref="IWebSocketTransport.AcknowledgedBytes"/>).</summary>
    private long PeerProgress
    {
        get
        {
            long acknowledged = _session.Options.SlowConsumerTimeout > TimeSpan.Zero ? _transport.AcknowledgedBytes : -1;
            return _output.Flushed + Math.Max(0, acknowledged);
        }
    }

    /// <summary>Applies the session's timers and the slow-consumer policy; returns whether the websocket must end now.</summary>
    /// <param name="acted">Whether the timer did something (a Ping, a Close): a timer that fired a little before its
    /// deadline (it was armed at the first read of a burst, the deadline counts from the last) only re-arms.</param>
    private bool OnTimerDue(out bool acted)
    {
        _timerDue = false;
        SessionTimerResult timer;
        acted = false;
        lock (_output.Sync)
        {
            timer = _session.State == WebSocketSessionState.Closed ? SessionTimerResult.None : _session.OnTimer();
            if (timer == SessionTimerResult.None && _session.State == WebSocketSessionState.Open && !_output.IsWritable
                && _slowWatch.Check(_time, _session.Options.SlowConsumerTimeout, PeerProgress, out _))
            {
                // The peer took none of our output for the slow-consumer timeout: 1008, then the close timeout bounds
                // the rest.
                StartSlowConsumerCloseLocked();
                acted = true;
            }
            else
            {
                ArmTimer();
            }
        }

        acted |= timer != SessionTimerResult.None;
        _output.Flush();
        return timer is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout;
    }

    /// <summary>Gives up a peer that reads too slowly (the slow-consumer timeout, or a group's
    /// <see cref="SlowMemberPolicy.Close"/>): Close 1008 "slow consumer", then the close timeout bounds the rest. Under
    /// the output's lock; flush after.</summary>
    internal void StartSlowConsumerCloseLocked()
    {
        if (_session.State == WebSocketSessionState.Open)
        {
            _slowConsumer = true;
            _session.StartClose(CloseStatus.PolicyViolation, "slow consumer");
            WebSocketTelemetry.SlowConsumers.Add(1);
        }

        ArmTimer();
    }

    /// <summary>Ends the websocket (on the loop, once): reading stops, the output ends, and the end is reported.</summary>
    private void Finish()
    {
        if (_finished)
        {
            return;
        }

        _finished = true;
        // The cause is what ended the websocket: an abort after this is not, nor a transport the host saw go.
        _abortedAtEnd = StoppedByApplication;
        _transport.StopReading();
        _ = FinishAsync();
    }

    private async Task FinishAsync()
    {
        try
        {
            lock (_output.Sync)
            {
                _session.Dispose(); // returns a partly gathered frame's buffer and permessage-deflate's inflate buffers
            }

            _timer?.Dispose();
            await EndOutputAsync(halfCloseOnly: false).ConfigureAwait(false);
            await TearDownGivenUpAsync().ConfigureAwait(false);
            Volatile.Read(ref _inbox)?.Abandon(); // group frames still queued go back to their pool
        }
        catch (Exception error) when (error is not OutOfMemoryException)
        {
            // Whatever failed on the way, the websocket ends and reports it: nothing may leave Completion pending.
            _error ??= error;
            AbortTransport();
        }

        WebSocketTelemetry.ActiveConnections.Add(-1);

        // An abort after the connection was failed (a host aborts a request when the peer's FIN ends the connection's
        // input) ends the drain as the transport's end does: the violation or the failed listener stays the cause.
        bool aborted = _abortedAtEnd && !_session.IsDraining;
        if (aborted && _error is null && _session.ReceivedCloseStatus is null)
        {
            _error = new OperationCanceledException("The websocket was aborted.");
        }

        var info = WebSocketCloseInfo.From(_session, _closeTimedOut, _slowConsumer, aborted, _error);
        Report(info, _activity);
        _activity?.Dispose();
        try
        {
            Volatile.Read(ref _listener)?.OnClose(info);
        }
        catch (Exception error)
        {
            _closeCallbackError = error;
        }
        finally
        {
            try
            {
                _transport.OnEnded(info);
            }
            finally
            {
                SetComplete(info);
            }
        }
    }

    private Exception? _closeCallbackError;

    /// <summary>An exception the listener's <see cref="IWebSocketFrameListener.OnClose"/> threw (the websocket had
    /// ended; a host may rethrow it to whoever runs the websocket).</summary>
    public Exception? CloseCallbackError => IsComplete ? _closeCallbackError : null;

    /// <summary>Ends our direction of the transport once: flushes what was appended (our Close included) within the
    /// close timeout, or not at all when the websocket was given up (aborted, keep-alive or close timeout, slow
    /// consumer), cancelling a stuck flush and tearing the transport down; then half-closes the transport when asked and
    /// it can, or completes its output. With <paramref name="halfCloseOnly"/>, a transport that cannot half-close is left
    /// as it is.</summary>
    private Task EndOutputAsync(bool halfCloseOnly)
    {
        if (halfCloseOnly && !_transport.CanHalfClose)
        {
            return Task.CompletedTask;
        }

        lock (_output.Sync)
        {
            return _endingOutput ??= EndOutputCoreAsync(halfCloseOnly);
        }
    }

    private async Task EndOutputCoreAsync(bool halfClose)
    {
        await Task.Yield(); // never under the caller's lock
        _output.RunHandedOver(); // a flush's end left to a loop that no longer dispatches
        bool givenUp = IsGivenUp;
        _output.Flush();
        Task flushed = _output.IdleAsync();
        bool stuck = false;
        if (!flushed.IsCompleted)
        {
            TimeSpan bound = givenUp ? TimeSpan.Zero : _session.Options.CloseTimeout;
            try
            {
                await flushed.WaitAsync(bound, _time).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                stuck = true;
            }
        }

        if (_output.End() || stuck)
        {
            // Even the Close cannot be written: the peer does not read. Tear the connection down.
            _output.CancelPendingFlush();
            AbortTransport();
            await _output.IdleAsync().ConfigureAwait(false);
        }

        try
        {
            _outputEndedAt = Stopwatch.GetTimestamp();
            await _transport.EndOutputAsync(halfClose).ConfigureAwait(false);
        }
        catch (Exception error) when (error is IOException or ObjectDisposedException or InvalidOperationException or OperationCanceledException)
        {
            // The transport was torn down or failed: nothing left to end.
        }
        catch (Exception error) when (error is not OutOfMemoryException)
        {
            // A host's transport failed to end its output in a way of its own (a TLS library's error, say): the
            // connection is torn down so the peer sees it end, and the websocket still ends, with that failure.
            _error ??= error;
            AbortTransport();
        }
        finally
        {
            _output.Release();
            Sender.ReleaseDeflater();
        }
    }

    /// <summary>
    /// A peer given up (a keep-alive or close timeout, a slow consumer, an abort) that once held our output back may
    /// hold it still, below the driver: a host's own buffers (Kestrel's response pipe, for one) keep what we handed
    /// over, and the connection open, for as long as the peer does not read, even after our output ended. Unless the
    /// peer answered with its Close, such a transport is torn down: at once after an abort, otherwise once our last
    /// bytes (our Close) had <see cref="GiveUpLinger"/> (at most the close timeout) to leave.
    /// </summary>
    private async Task TearDownGivenUpAsync()
    {
        if (!IsGivenUp || _tornDown || !_output.WasHeldBack || _session.ReceivedCloseStatus is not null)
        {
            return;
        }

        if (!Stopped)
        {
            TimeSpan linger = (_session.Options.CloseTimeout < GiveUpLinger ? _session.Options.CloseTimeout : GiveUpLinger)
                - Stopwatch.GetElapsedTime(_outputEndedAt);
            if (linger > TimeSpan.Zero)
            {
                // Real time, whatever clock the session runs on: this bounds how long a socket lingers.
                await Task.Delay(linger).ConfigureAwait(false);
            }
        }

        AbortTransport();
    }

    /// <summary>How long a given-up peer's transport lingers after our output ended before it is torn down (see
    /// <see cref="TearDownGivenUpAsync"/>).</summary>
    internal static readonly TimeSpan GiveUpLinger = TimeSpan.FromSeconds(1);

    /// <summary>Whether the peer was given up rather than closed with: an abort (or a lost transport), a slow
    /// consumer, the keep-alive or close timeout, or a client's wait for the server's end timed out. Our output is then
    /// not waited for.</summary>
    private bool IsGivenUp => Stopped || _slowConsumer || _closeTimedOut
        || _session.Timeout is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout;

    private bool _tornDown;
    private bool _abortedAtEnd;
    private long _outputEndedAt;

    private void AbortTransport()
    {
        _tornDown = true;
        try
        {
            _transport.Abort();
        }
        catch (Exception error) when (error is not OutOfMemoryException)
        {
            // Already gone, or a host's abort failed: the websocket ends either way.
        }
    }

    private static void Report(WebSocketCloseInfo info, Activity? activity)
    {
        string initiator = info.EndReason.ToString();
        WebSocketTelemetry.Closes.Add(
            1, new KeyValuePair<string, object?>("websocket.close.status", (int)info.Status),
            new KeyValuePair<string, object?>("websocket.close.cause", initiator));
        if (activity is not null)
        {
            activity.SetTag("websocket.close.status", (int)info.Status);
            activity.SetTag("websocket.close.cause", initiator);
            if (info.Violation != ProtocolViolation.None)
            {
                activity.SetTag("websocket.violation", info.Violation.ToString());
                activity.SetStatus(ActivityStatusCode.Error, info.Violation.Describe());
            }
            else if (info.Error is not null)
            {
                activity.SetStatus(ActivityStatusCode.Error, info.Error.Message);
            }
        }
    }
}
