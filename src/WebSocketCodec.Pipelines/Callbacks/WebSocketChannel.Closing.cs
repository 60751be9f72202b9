using System.Buffers;
using System.Diagnostics;
using System.IO.Pipelines;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace WebSocketCodec.Pipelines;

// Closing: the bounded drain, timers, completing the transport, and reporting the end.
public sealed partial class WebSocketChannel
{
    /// <summary>Reads and discards input until the peer's Close (when <paramref name="probeForClose"/>) or FIN, for at
    /// most the close timeout and <see cref="MaxDrainBytes"/>; running out of either counts as a close timeout.</summary>
    private async Task DrainAsync(PipeReader reader, bool probeForClose)
    {
        _timer?.Change(System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
        using var deadline = new CancellationTokenSource(_session.Options.CloseTimeout, _time);
        long drained = 0;
        try
        {
            while (drained < MaxDrainBytes && !_aborted)
            {
                ReadResult result = await reader.ReadAsync(deadline.Token).ConfigureAwait(false);
                ReadOnlySequence<byte> buffer = result.Buffer;
                bool sawClose = probeForClose && StartsWithClose(buffer, out _drainedCloseStatus);
                drained += buffer.Length;
                reader.AdvanceTo(buffer.End);
                if (result.IsCompleted || sawClose)
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

    /// <summary>Whether a read that starts on a frame boundary holds a Close (the peer's answer to ours), and its status
    /// (1005 when it has none).</summary>
    private bool StartsWithClose(in ReadOnlySequence<byte> buffer, out ushort? status)
    {
        status = null;
        Span<byte> copy = stackalloc byte[512];
        int length = (int)Math.Min(buffer.Length, copy.Length);
        buffer.Slice(0, length).CopyTo(copy);
        var probe = new FrameDecoder(Role, new FrameDecoderOptions { ValidateUtf8 = false });
        Span<byte> rest = copy.Slice(0, length);
        while (probe.ReadFrame(rest, out FrameHeader header, out Span<byte> payload, out _) == OperationStatus.Done)
        {
            if (header.Opcode == WebSocketOpcode.Close)
            {
                status = payload.Length >= 2 ? System.Buffers.Binary.BinaryPrimitives.ReadUInt16BigEndian(payload) : (ushort)CloseStatus.NoStatusReceived;
                return true;
            }

            rest = rest.Slice((int)header.FrameLength);
        }

        return false;
    }

    private void ArmTimer()
    {
        TimeSpan due = _session.NextTimerDue;
        if (due == System.Threading.Timeout.InfiniteTimeSpan)
        {
            _timer?.Change(System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
            return;
        }

        _timer ??= _time.CreateTimer(
            static state => ((WebSocketChannel)state!)._transport.Input.CancelPendingRead(),
            this, System.Threading.Timeout.InfiniteTimeSpan, System.Threading.Timeout.InfiniteTimeSpan);
        _timer.Change(due, System.Threading.Timeout.InfiniteTimeSpan);
    }

    /// <summary>Ends our direction of the transport: half-closes it when it can (<see cref="IHalfClosingDuplexPipe"/>,
    /// an HTTP/2 stream's END_STREAM), else completes its writer; with <paramref name="halfCloseOnly"/>, a transport
    /// that cannot half-close is left as it is.</summary>
    private async ValueTask CompleteOutputAsync(bool halfCloseOnly = false)
    {
        if (halfCloseOnly && _transport is not IHalfClosingDuplexPipe)
        {
            return;
        }

        await _writeLock.WaitAsync().ConfigureAwait(false);
        try
        {
            if (_outputCompleted)
            {
                return;
            }

            _outputClosed = true;
            _outputCompleted = true;
            _output.Commit();
            if (halfCloseOnly && _transport is IHalfClosingDuplexPipe halfClosing)
            {
                await halfClosing.CloseOutputAsync().ConfigureAwait(false);
            }
            else
            {
                await _transport.Output.CompleteAsync().ConfigureAwait(false);
            }
        }
        finally
        {
            _writeLock.Release();
        }
    }

    private static void Report(WebSocketCloseInfo info, Activity? activity)
    {
        string initiator = info.Violation != ProtocolViolation.None ? "violation"
            : info.Timeout is not null ? "timeout"
            : info.Error is not null ? "error"
            : info.ReceivedStatus is null ? "transport"
            : "peer-or-local";
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
