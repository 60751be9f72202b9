using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Pipelines;

// Closing: the bounded drain, timers, completing the transport, and reporting the end.
public sealed partial class WebSocketConnection
{
    /// <summary>After the close exchange, as a client: reads and discards input until the server's FIN, for at most
    /// the close timeout and <see cref="WebSocketSessionOptions.MaxDrainBytes"/>; running out of either counts as a
    /// close timeout.</summary>
    private async Task DrainAsync(PipeReader reader)
    {
        _timer?.Change(System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
        _output.Flush();
        using var deadline = new CancellationTokenSource(_session.Options.CloseTimeout, _time);
        long drained = 0;
        try
        {
            while (drained < _session.Options.MaxDrainBytes && !_aborted)
            {
                ReadResult result = await reader.ReadAsync(deadline.Token).ConfigureAwait(false);
                drained += result.Buffer.Length;
                reader.AdvanceTo(result.Buffer.End);
                if (result.IsCompleted)
                {
                    return;
                }
            }

            _closeTimedOut = !_aborted;
        }
        catch (OperationCanceledException)
        {
            // The close timeout passed: close the transport anyway.
            _closeTimedOut = !_aborted;
        }
    }

    /// <summary>Arms the timer for the next of the session's timers and the slow-consumer deadline; the caller holds
    /// the output's lock.</summary>
    private void ArmTimer()
    {
        _armedForClose = _session.State == WebSocketSessionState.CloseSent;
        TimeSpan due = _session.NextTimerDue;
        if (_session.State == WebSocketSessionState.Open)
        {
            due = SlowConsumerWatch.Earlier(due, _slowWatch.NextDue(_time, _session.Options.SlowConsumerTimeout));
        }

        if (due == System.Threading.Timeout.InfiniteTimeSpan)
        {
            _timer?.Change(System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
            return;
        }

        _timer ??= _time.CreateTimer(static state => ((WebSocketConnection)state!).OnTimerFired(), this,
            System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
        _timer.Change(due, System.Threading.Timeout.InfiniteTimeSpan);
    }

    /// <summary>A timer is due: the loop runs it next, whether it waits for input or for the output to drain.</summary>
    private void OnTimerFired()
    {
        Interlocked.Increment(ref _timerFirings);
        _timerDue = true;
        try
        {
            _transport.Input.CancelPendingRead();
        }
        catch (Exception error) when (error is InvalidOperationException or ObjectDisposedException)
        {
            // The loop ended in between.
        }

        WakeLoop();
    }

    /// <summary>Ends our direction of the transport once: flushes what was appended (our Close included) within the
    /// close timeout, or not at all when the websocket was given up (aborted, keep-alive or close timeout, slow
    /// consumer), cancelling a stuck flush and tearing the transport down (<see cref="TransportAbort"/>); then
    /// half-closes the transport when it can (<see cref="IHalfClosingDuplexPipe"/>: a TCP FIN, an HTTP/2 stream's
    /// END_STREAM) or completes its writer (a plain <see cref="IDuplexPipe"/>: completing the writer is its end of our
    /// direction). With <paramref name="halfCloseOnly"/>, a transport that says it cannot half-close is left as it is.
    /// </summary>
    private Task EndOutputAsync(bool halfCloseOnly)
    {
        if (halfCloseOnly && _transport is IHalfClosingDuplexPipe { CanHalfClose: false })
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
        bool givenUp = _aborted || _slowConsumer || _session.Timeout is SessionTimerResult.KeepAliveTimeout or SessionTimerResult.CloseTimeout;
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
            if (halfClose && _transport is IHalfClosingDuplexPipe { CanHalfClose: true } halfClosing)
            {
                await halfClosing.CloseOutputAsync().ConfigureAwait(false);
            }
            else
            {
                await _transport.Output.CompleteAsync().ConfigureAwait(false);
            }
        }
        catch (Exception error) when (error is IOException or ObjectDisposedException or InvalidOperationException or OperationCanceledException)
        {
            // The transport was torn down or failed: nothing left to end.
        }
        finally
        {
            _output.Release();
            Sender.ReleaseDeflater();
        }
    }

    private void AbortTransport()
    {
        try
        {
            TransportAbort?.Invoke();
        }
        catch (Exception error) when (error is ObjectDisposedException or InvalidOperationException or IOException)
        {
            // Already gone.
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
