using WebSocketCodec.Fuzz.Model;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// The differential oracle against <see cref="ReferenceModel"/>: the library must accept the frames the model accepts
/// (opcode, FIN, RSV and unmasked payload alike), fail where the model says a receiver must, never fail where the model
/// proves no rule broken, and close with a status the model allows for the frame it failed on. Where the input ends
/// inside a frame whose bytes so far already break a rule, failing then (with an allowed status) and waiting for more
/// are both right.
/// </summary>
public static class ModelOracle
{
    /// <summary>The model's options for a <see cref="FrameDecoder"/> made with <paramref name="options"/>.</summary>
    public static ModelOptions For(WebSocketRole role, FrameDecoderOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new ModelOptions(
            role == WebSocketRole.Server, options.MaxFramePayloadLength, options.MaxMessagePayloadLength,
            options.MaxFragmentsPerMessage, options.AllowedRsv, options.PerMessageDeflate, options.ValidateUtf8);
    }

    /// <summary>The model's options for a <see cref="WebSocketSession"/> made with <paramref name="options"/> (no
    /// extension negotiated).</summary>
    public static ModelOptions For(WebSocketRole role, WebSocketSessionOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new ModelOptions(
            role == WebSocketRole.Server, options.MaxFramePayloadLength, options.MaxMessagePayloadLength,
            options.MaxFragmentsPerMessage, 0, false, options.ValidateUtf8);
    }

    /// <summary>Checks a drive of the frame decoder over the whole input (frames, violation, bytes consumed).</summary>
    public static void CheckFrames(ModelVerdict model, FrameTrace trace, string what)
    {
        ArgumentNullException.ThrowIfNull(model);
        ArgumentNullException.ThrowIfNull(trace);
        CheckFrameList(model.Frames, trace.Frames, what);
        CheckEnd(model, trace.Violation, what);
        if (trace.Consumed >= 0 && trace.Consumed != model.AcceptedBytes)
        {
            throw Fail(what, $"consumed {trace.Consumed} B, the model's frames take {model.AcceptedBytes} B", model);
        }
    }

    /// <summary>Checks the violation a drive that validates payload bytes as they arrive ended with, where the input
    /// ends inside a payload: the bytes so far must prove it.</summary>
    public static void CheckEarlyFailure(ModelVerdict model, ProtocolViolation violation, string what)
    {
        ArgumentNullException.ThrowIfNull(model);
        CheckEnd(model, violation, what);
    }

    /// <summary>Checks a drive of the session over the whole input: the handler got the model's frames up to the
    /// peer's Close (the session stops reading there) or up to the data frame the handler threw at
    /// (<paramref name="throwAt"/>: it then closes with 1011); a violation has an allowed status, and the peer's Close
    /// is echoed.</summary>
    public static void CheckSession(ModelVerdict model, SessionTrace trace, int throwAt, string what)
    {
        ArgumentNullException.ThrowIfNull(model);
        ArgumentNullException.ThrowIfNull(trace);
        List<ModelFrame> expected = [];
        ModelFrame? close = null;
        int dataFrames = 0;
        bool threw = false;
        foreach (ModelFrame frame in model.Frames)
        {
            expected.Add(frame);
            if (frame.Opcode < 8 && dataFrames++ == throwAt)
            {
                threw = true;
                break;
            }

            if (frame.Opcode == 8)
            {
                close = frame;
                break;
            }
        }

        CheckFrameList(expected, trace.Frames, what);
        if (threw)
        {
            if (trace.Violation != ProtocolViolation.None || trace.SentCloseStatus != CloseStatus.InternalError)
            {
                throw Fail(what, $"the handler threw at frame {expected.Count - 1}: expected 1011, got {trace.Violation}, Close {Status(trace.SentCloseStatus)}", model);
            }

            return;
        }

        if (close is not null)
        {
            int code = close.Payload.Length >= 2 ? (close.Payload[0] << 8) | close.Payload[1] : 1005;
            if (trace.Violation != ProtocolViolation.None || (int?)trace.ReceivedCloseStatus != code || (int?)trace.SentCloseStatus != code
                || trace.State != WebSocketSessionState.Closed)
            {
                throw Fail(what, $"the peer's Close ({code}) ends it: got {trace.Violation}, received {Status(trace.ReceivedCloseStatus)}, sent {Status(trace.SentCloseStatus)}, {trace.State}", model);
            }

            if (close.Payload.Length > 2 && IsUtf8(close.Payload.AsSpan(2))
                && trace.ReceivedCloseReason != System.Text.Encoding.UTF8.GetString(close.Payload.AsSpan(2)))
            {
                throw Fail(what, $"the peer's Close reason is '{trace.ReceivedCloseReason}'", model);
            }

            return;
        }

        CheckEnd(model, trace.Violation, what);
        if (trace.Violation != ProtocolViolation.None && !model.Statuses.Contains(Status(trace.SentCloseStatus)))
        {
            throw Fail(what, $"the session sent a Close with {Status(trace.SentCloseStatus)} for {trace.Violation}", model);
        }

        if (trace.Violation == ProtocolViolation.None && trace.SentCloseStatus is not null)
        {
            throw Fail(what, $"the session sent a Close with {Status(trace.SentCloseStatus)} without a violation", model);
        }
    }

    private static void CheckEnd(ModelVerdict model, ProtocolViolation violation, string what)
    {
        if (violation == ProtocolViolation.None)
        {
            if (model.End == ModelEnd.Rejected)
            {
                throw Fail(what, "the library accepts what the model rejects", model);
            }

            return;
        }

        int status = (int)violation.ToCloseStatus();
        if (model.Broken.Count == 0)
        {
            throw Fail(what, $"the library fails with {violation} ({status}) where the model sees no rule broken", model);
        }

        if (!model.Statuses.Contains(status))
        {
            throw Fail(what, $"the library fails with {violation} ({status}), a status none of the rules broken justifies", model);
        }
    }

    private static void CheckFrameList(IReadOnlyList<ModelFrame> expected, List<FrameRecord> actual, string what)
    {
        int common = Math.Min(expected.Count, actual.Count);
        for (int i = 0; i < common; i++)
        {
            ModelFrame m = expected[i];
            FrameRecord a = actual[i];
            if ((int)a.Opcode != m.Opcode || a.Fin != m.Fin || a.Rsv != m.Rsv || !a.Payload.AsSpan().SequenceEqual(m.Payload))
            {
                throw new OracleFailureException($"{what}: the library and the model disagree at frame {i}: {a} vs the model's {m}");
            }
        }

        if (expected.Count != actual.Count)
        {
            throw new OracleFailureException($"{what}: the library delivers {actual.Count} frames, the model {expected.Count}");
        }
    }

    private static int Status(CloseStatus? status) => status is { } s ? (int)s : 0;

    private static bool IsUtf8(ReadOnlySpan<byte> bytes)
    {
        var utf8 = default(ModelUtf8);
        foreach (byte b in bytes)
        {
            if (!utf8.Feed(b))
            {
                return false;
            }
        }

        return !utf8.InsideCharacter;
    }

    private static OracleFailureException Fail(string what, string message, ModelVerdict model) =>
        new($"{what}: {message} (model: {model})");
}
