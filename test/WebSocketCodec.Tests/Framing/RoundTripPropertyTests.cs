using System.Buffers;
using System.Text;
using FsCheck;
using FsCheck.Fluent;

namespace WebSocketCodec.Tests.Framing;

/// <summary>
/// Property: any valid stream of frames (fragmented text and binary messages with control frames interleaved,
/// payloads of every length class), encoded by either role and cut into segments at random points, decodes back to
/// the same frames through the streaming path (header from a sequence, payload chunk by chunk).
/// </summary>
public class RoundTripPropertyTests
{
    /// <summary>One frame as the test means it to arrive.</summary>
    public sealed record FrameSpec(WebSocketOpcode Opcode, bool Fin, byte[] Payload);

    /// <summary>A stream of frames, the role that encodes it and where it is cut.</summary>
    public sealed record Scenario(FrameSpec[] Frames, bool ClientEncodes, int[] Cuts)
    {
        public override string ToString() =>
            $"{(ClientEncodes ? "client" : "server")} frames=[{string.Join(", ", Frames.Select(f => $"{f.Opcode}/{(f.Fin ? "F" : "-")}/{f.Payload.Length}"))}] cuts=[{string.Join(",", Cuts)}]";
    }

    private static readonly Gen<byte> AnyByte = Gen.Choose(0, 255).Select(i => (byte)i);

    private static Gen<int> PayloadLength(int max) => Gen.Frequency(
        (6, Gen.Choose(0, Math.Min(max, 125))),
        (2, Gen.Choose(Math.Min(max, 126), Math.Min(max, 1000))),
        (1, Gen.Elements(Math.Min(max, 65535), Math.Min(max, 65536), Math.Min(max, 70000))));

    private static readonly Gen<string> AnyText = Gen.Choose(0, 40).SelectMany(n =>
        Gen.Elements("a", "Z", " ", "é", "ß", "κ", "ό", "€", "中", "\uFFFD", "\uFFFE", "😀", "𐍈", "\u0000")
            .ArrayOf(n).Select(parts => string.Concat(parts)));

    private static readonly Gen<FrameSpec> Control =
        from opcode in Gen.Elements(WebSocketOpcode.Ping, WebSocketOpcode.Pong, WebSocketOpcode.Close)
        from length in Gen.Choose(2, 125)
        from payload in AnyByte.ArrayOf(length)
        from code in Gen.Elements((ushort)1000, (ushort)1001, (ushort)1011, (ushort)1014, (ushort)3000, (ushort)4999)
        from reason in AnyText
        select opcode == WebSocketOpcode.Close ? CloseFrame(code, reason) : new FrameSpec(opcode, true, payload);

    /// <summary>A message split into 1-4 fragments, control frames between them sometimes.</summary>
    private static readonly Gen<FrameSpec[]> Message =
        from isText in Gen.Elements(true, false)
        from textParts in Gen.Choose(1, 8)
        from text in AnyText.ArrayOf(textParts)
        from binaryLength in PayloadLength(70000)
        from binary in AnyByte.ArrayOf(binaryLength)
        from fragments in Gen.Choose(1, 4)
        from cuts in Gen.Choose(0, 1 << 20).ArrayOf(fragments - 1)
        from controls in Control.ArrayOf(fragments)
        from interleave in Gen.Elements(true, false).ArrayOf(fragments)
        select Fragment(isText ? System.Text.Encoding.UTF8.GetBytes(string.Concat(text)) : binary, isText, cuts, controls, interleave);

    private static readonly Gen<Scenario> Scenarios =
        from messageCount in Gen.Choose(1, 5)
        from messages in Message.ArrayOf(messageCount)
        from client in Gen.Elements(true, false)
        from cutCount in Gen.Choose(0, 12)
        from cuts in Gen.Choose(0, 1 << 20).ArrayOf(cutCount)
        select new Scenario([.. messages.SelectMany(m => m)], client, cuts);

    private static FrameSpec CloseFrame(ushort code, string reason)
    {
        byte[] bytes = new byte[ClosePayload.MaxReasonLength + 2];
        string fitted = reason;
        while (System.Text.Encoding.UTF8.GetByteCount(fitted) > ClosePayload.MaxReasonLength)
        {
            fitted = fitted[..^1];
        }

        int written = ClosePayload.Write(bytes, (CloseStatus)code, fitted);
        return new FrameSpec(WebSocketOpcode.Close, true, bytes[..written]);
    }

    private static FrameSpec[] Fragment(byte[] content, bool isText, int[] cuts, FrameSpec[] controls, bool[] interleave)
    {
        int[] points = [0, .. cuts.Select(c => content.Length == 0 ? 0 : c % (content.Length + 1)).Order(), content.Length];
        var frames = new List<FrameSpec>();
        for (int i = 0; i + 1 < points.Length; i++)
        {
            var opcode = i == 0 ? (isText ? WebSocketOpcode.Text : WebSocketOpcode.Binary) : WebSocketOpcode.Continuation;
            frames.Add(new FrameSpec(opcode, i + 2 == points.Length, content[points[i]..points[i + 1]]));
            if (interleave[i])
            {
                frames.Add(controls[i]);
            }
        }

        return [.. frames];
    }

    [Fact]
    public void RandomFramesSplitAtRandomPointsDecodeBackEqual()
    {
        Property property = Prop.ForAll(Scenarios.ToArbitrary(), (Func<Scenario, bool>)DecodesBackEqual);
        Check.One(Config.QuickThrowOnFailure.WithMaxTest(300), property);
    }

    private static bool DecodesBackEqual(Scenario scenario)
    {
        var role = scenario.ClientEncodes ? WebSocketRole.Client : WebSocketRole.Server;
        var encoder = new FrameEncoder(role);
        var wire = new ArrayBufferWriter<byte>();
        foreach (var frame in scenario.Frames)
        {
            encoder.Write(wire, frame.Opcode, frame.Payload, frame.Fin);
        }

        byte[] bytes = wire.WrittenSpan.ToArray();
        int[] cuts = [.. scenario.Cuts.Select(c => bytes.Length == 0 ? 0 : 1 + (c % Math.Max(1, bytes.Length - 1))).Distinct().Where(c => c < bytes.Length)];
        var decoder = new FrameDecoder(scenario.ClientEncodes ? WebSocketRole.Server : WebSocketRole.Client);
        var decoded = Decode(decoder, Segments.Split(bytes, cuts));
        Assert.True(decoder.Violation == ProtocolViolation.None, $"{decoder.Violation} in {scenario}");
        Assert.True(decoded.Count == scenario.Frames.Length, $"{decoded.Count} frames decoded from {scenario}");

        for (int i = 0; i < decoded.Count; i++)
        {
            var (expected, actual) = (scenario.Frames[i], decoded[i]);
            if (expected.Opcode != actual.Opcode || expected.Fin != actual.Fin || !expected.Payload.AsSpan().SequenceEqual(actual.Payload))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>The streaming loop a transport runs: header from the sequence, then the payload segment by segment,
    /// unmasked in place (the sequence's arrays are the test's own copies).</summary>
    private static List<FrameSpec> Decode(FrameDecoder decoder, ReadOnlySequence<byte> input)
    {
        var frames = new List<FrameSpec>();
        while (!input.IsEmpty)
        {
            var status = decoder.ReadHeader(input, out var header, out _);
            if (status != OperationStatus.Done)
            {
                break;
            }

            input = input.Slice(header.HeaderLength);
            var payload = new List<byte>();
            var remaining = input.Slice(0, header.PayloadLength);
            status = header.PayloadLength == 0 ? decoder.ProcessPayload([]) : OperationStatus.NeedMoreData;
            foreach (var segment in remaining)
            {
                if (segment.IsEmpty)
                {
                    continue;
                }

                var writable = System.Runtime.InteropServices.MemoryMarshal.AsMemory(segment).Span;
                status = decoder.ProcessPayload(writable);
                payload.AddRange(writable);
                if (status == OperationStatus.InvalidData)
                {
                    return frames;
                }
            }

            Assert.Equal(OperationStatus.Done, status);
            input = input.Slice(header.PayloadLength);
            frames.Add(new FrameSpec(header.Opcode, header.Fin, [.. payload]));
        }

        return frames;
    }
}
