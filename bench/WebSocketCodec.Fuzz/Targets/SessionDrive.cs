using System.Buffers;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// Drives a <see cref="WebSocketSession"/> as a transport would: each read is appended to what the session left
/// unconsumed and offered to <c>Receive</c> until it has used what it can; after a violation it goes on feeding (the
/// session drains); a handler that throws is reported with <c>OnHandlerFailed</c> and the rest of that read offered
/// again. Bounded by a <see cref="StepGuard"/>. Afterwards the session's output is checked (whole frames the peer
/// accepts, nothing after our Close), the session disposed and the pool's balance checked.
/// </summary>
public static class SessionDrive
{
    /// <summary>Runs <paramref name="input"/> cut at <paramref name="cuts"/> through a new session.</summary>
    public static SessionTrace Run(WebSocketRole role, WebSocketSessionOptions options, byte[] input, int[] cuts, int throwAt)
    {
        ArgumentNullException.ThrowIfNull(options);
        var pool = new BalanceCheckingPool();
        var session = new WebSocketSession(role, options with { Pool = pool, TimeProvider = FrozenTime.Instance });
        var trace = new SessionTrace();
        var handler = new FailingHandler(trace.Frames, throwAt);
        var guard = new StepGuard("session receive", input.Length);
        byte[] data = (byte[])input.Clone();
        byte[] pending = [];
        bool done = false;
        foreach ((int start, int length) in Splits.Pieces(data.Length, cuts))
        {
            byte[] buffer = [.. pending, .. data.AsSpan(start, length)];
            int offset = 0;
            while (!done)
            {
                guard.Step();
                OperationStatus status;
                int consumed;
                try
                {
                    status = session.Receive(buffer.AsSpan(offset), ref handler, out consumed);
                }
                catch (HandlerFailureException)
                {
                    consumed = session.OnHandlerFailed();
                    status = OperationStatus.InvalidData;
                }

                if (consumed < 0 || consumed > buffer.Length - offset)
                {
                    throw new OracleFailureException($"Receive consumed {consumed} of {buffer.Length - offset}");
                }

                offset += consumed;
                if (status == OperationStatus.Done || session.State == WebSocketSessionState.Closed)
                {
                    done = true;
                }
                else if (consumed == 0 || offset == buffer.Length)
                {
                    break;
                }
            }

            pending = buffer.AsSpan(offset).ToArray();
            if (done)
            {
                break;
            }
        }

        trace.State = session.State;
        trace.Violation = session.Violation;
        trace.SentCloseStatus = session.SentCloseStatus;
        trace.ReceivedCloseStatus = session.ReceivedCloseStatus;
        trace.ReceivedCloseReason = session.ReceivedCloseReason;
        trace.Draining = session.IsDraining;
        CheckOutput(role, session.PendingOutput, session.SentCloseStatus);
        session.Dispose();
        pool.AssertBalanced("after Dispose");
        return trace;
    }

    /// <summary>The session's output: whole frames the peer's decoder accepts, control frames only, at most one
    /// Close, nothing after it, and its status the one <see cref="WebSocketSession.SentCloseStatus"/> reports.</summary>
    private static void CheckOutput(WebSocketRole role, ReadOnlySpan<byte> output, CloseStatus? sentClose)
    {
        var peer = new FrameDecoder(role == WebSocketRole.Server ? WebSocketRole.Client : WebSocketRole.Server);
        var frames = new List<FrameRecord>();
        var handler = new RecordingHandler(frames);
        OperationStatus status = peer.DecodeFrames(output.ToArray(), ref handler, out int consumed, out _);
        if (status != OperationStatus.NeedMoreData || consumed != output.Length)
        {
            throw new OracleFailureException($"the session's output is not whole valid frames: {peer.Violation}, {consumed} of {output.Length} B");
        }

        int close = frames.FindIndex(f => f.Opcode == WebSocketOpcode.Close);
        if (close >= 0 && close != frames.Count - 1)
        {
            throw new OracleFailureException($"the session wrote {frames.Count - 1 - close} frames after its Close");
        }

        CloseStatus? written = close < 0 ? null : frames[close].Payload.Length >= 2
            ? (CloseStatus)((frames[close].Payload[0] << 8) | frames[close].Payload[1])
            : CloseStatus.NoStatusReceived;
        if (written != sentClose)
        {
            throw new OracleFailureException($"the session wrote a Close with {written}, but SentCloseStatus is {sentClose}");
        }
    }
}
