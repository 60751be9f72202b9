using System.Buffers;

namespace WebSocketCodec.Fuzz;

/// <summary>
/// Four ways to drive a <see cref="FrameDecoder"/> over the same bytes; each returns a <see cref="FrameTrace"/>:
/// the fast path over the whole buffer (<see cref="FrameDecoder.DecodeFrames{THandler}"/>), the general path over the
/// whole buffer (<see cref="FrameDecoder.ReadHeader(ReadOnlySpan{byte}, out FrameHeader, out int)"/> then
/// <see cref="FrameDecoder.ProcessPayload"/> in random chunks), the fast path over reads cut at given points (unconsumed
/// bytes kept for the next call, as a transport does), and a streaming drive that reads headers as their bytes come
/// and processes payloads chunk by chunk as they arrive. Every drive copies the input first (payloads are unmasked in
/// place) and is bounded by a <see cref="StepGuard"/>.
/// </summary>
public static class DecoderDrives
{
    /// <summary>The fast path: one <c>DecodeFrames</c> call over the whole input.</summary>
    public static FrameTrace FastWhole(WebSocketRole role, FrameDecoderOptions options, byte[] input)
    {
        var decoder = new FrameDecoder(role, options);
        var trace = new FrameTrace();
        var handler = new RecordingHandler(trace.Frames);
        byte[] buffer = (byte[])input.Clone();
        decoder.DecodeFrames(buffer, ref handler, out int consumed, out long needed);
        trace.Violation = decoder.Violation;
        trace.Consumed = consumed;
        trace.BytesNeeded = trace.Violation == ProtocolViolation.None ? needed : -1;
        return trace;
    }

    /// <summary>The general path over the whole input: a whole frame's payload is processed in random chunks (some
    /// empty); a frame not all there is left alone, as <c>DecodeFrames</c> does.</summary>
    public static FrameTrace GeneralWhole(WebSocketRole role, FrameDecoderOptions options, byte[] input, FuzzRng rng)
    {
        var decoder = new FrameDecoder(role, options);
        var trace = new FrameTrace();
        byte[] buffer = (byte[])input.Clone();
        var guard = new StepGuard("general path", input.Length * 2);
        int offset = 0;
        while (true)
        {
            guard.Step();
            Span<byte> rest = buffer.AsSpan(offset);
            OperationStatus status = decoder.ReadHeader(rest, out FrameHeader header, out int headerNeeded);
            if (status == OperationStatus.NeedMoreData)
            {
                trace.BytesNeeded = headerNeeded;
                break;
            }

            if (status == OperationStatus.InvalidData)
            {
                break;
            }

            if (header.FrameLength > rest.Length)
            {
                trace.BytesNeeded = header.FrameLength - rest.Length;
                break;
            }

            Span<byte> payload = rest.Slice(header.HeaderLength, (int)header.PayloadLength);
            int done = 0;
            do
            {
                guard.Step();
                int take = rng.OneIn(3) ? payload.Length - done : rng.Next(payload.Length - done + 1);
                status = decoder.ProcessPayload(payload.Slice(done, take));
                done += take;
                if (status == OperationStatus.Done && done != payload.Length)
                {
                    throw new OracleFailureException($"ProcessPayload said Done with {payload.Length - done} payload bytes left");
                }
            }
            while (status == OperationStatus.NeedMoreData);

            if (status == OperationStatus.InvalidData)
            {
                break;
            }

            trace.Frames.Add(new FrameRecord(header.Opcode, header.Fin, header.Rsv, payload.ToArray()));
            offset += (int)header.FrameLength;
        }

        trace.Violation = decoder.Violation;
        trace.Consumed = offset;
        if (trace.Violation != ProtocolViolation.None)
        {
            trace.BytesNeeded = -1;
        }

        return trace;
    }

    /// <summary>The fast path over reads cut at <paramref name="cuts"/>: each read is appended to the bytes left
    /// unconsumed and <c>DecodeFrames</c> runs over them.</summary>
    public static FrameTrace FastSplit(WebSocketRole role, FrameDecoderOptions options, byte[] input, int[] cuts)
    {
        var decoder = new FrameDecoder(role, options);
        var trace = new FrameTrace();
        var handler = new RecordingHandler(trace.Frames);
        var guard = new StepGuard("split fast path", cuts.Length + 1);
        byte[] pending = [];
        long consumedTotal = 0;
        long needed = 0;
        foreach ((int start, int length) in Splits.Pieces(input.Length, cuts))
        {
            guard.Step();
            byte[] buffer = [.. pending, .. input.AsSpan(start, length)];
            OperationStatus status = decoder.DecodeFrames(buffer, ref handler, out int consumed, out needed);
            if (consumed < 0 || consumed > buffer.Length)
            {
                throw new OracleFailureException($"DecodeFrames consumed {consumed} of {buffer.Length}");
            }

            consumedTotal += consumed;
            pending = buffer.AsSpan(consumed).ToArray();
            if (status == OperationStatus.InvalidData)
            {
                break;
            }
        }

        trace.Violation = decoder.Violation;
        trace.Consumed = consumedTotal;
        trace.BytesNeeded = trace.Violation == ProtocolViolation.None ? needed : -1;
        return trace;
    }

    /// <summary>Streaming: headers are read as soon as their bytes are in (a cut header is carried to the next read),
    /// payloads processed as their bytes arrive, so a violation in a payload may show before its frame is complete.</summary>
    /// <returns>The trace, and whether the drive ended inside a payload whose frame the input does not complete.</returns>
    public static (FrameTrace Trace, bool EndedInCutPayload) Streaming(
        WebSocketRole role, FrameDecoderOptions options, byte[] input, int[] cuts)
    {
        var decoder = new FrameDecoder(role, options);
        var trace = new FrameTrace();
        byte[] data = (byte[])input.Clone();
        var guard = new StepGuard("streaming", data.Length * 3);
        var carry = new List<byte>();
        var payload = new List<byte>();
        FrameHeader header = default;
        bool inPayload = false;
        bool failed = false;
        foreach ((int start, int length) in Splits.Pieces(data.Length, cuts))
        {
            int offset = start;
            int end = start + length;
            while (!failed && (offset < end || (inPayload && decoder.PayloadRemaining == 0)))
            {
                guard.Step();
                if (inPayload)
                {
                    int take = (int)Math.Min(decoder.PayloadRemaining, end - offset);
                    Span<byte> chunk = data.AsSpan(offset, take);
                    OperationStatus status = decoder.ProcessPayload(chunk);
                    offset += take;
                    payload.AddRange(chunk);
                    if (status == OperationStatus.InvalidData)
                    {
                        failed = true;
                    }
                    else if (status == OperationStatus.Done)
                    {
                        trace.Frames.Add(new FrameRecord(header.Opcode, header.Fin, header.Rsv, [.. payload]));
                        payload.Clear();
                        inPayload = false;
                    }

                    continue;
                }

                int fromCarry = carry.Count;
                int added = Math.Min(FrameHeaderReader.MaxHeaderLength - fromCarry, end - offset);
                byte[] headerBytes = [.. carry, .. data.AsSpan(offset, added)];
                OperationStatus headerStatus = decoder.ReadHeader(headerBytes, out header, out _);
                if (headerStatus == OperationStatus.InvalidData)
                {
                    failed = true;
                }
                else if (headerStatus == OperationStatus.NeedMoreData)
                {
                    carry.AddRange(data.AsSpan(offset, added));
                    offset += added;
                    if (offset < end)
                    {
                        throw new OracleFailureException($"ReadHeader wants more than {FrameHeaderReader.MaxHeaderLength} bytes");
                    }
                }
                else
                {
                    offset += header.HeaderLength - fromCarry;
                    carry.Clear();
                    inPayload = true;
                }
            }
        }

        trace.Violation = decoder.Violation;
        return (trace, inPayload && decoder.PayloadRemaining > 0);
    }
}
