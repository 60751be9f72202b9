using System.Buffers;

namespace WebSocketCodec.Tests.Encoding;

public class EncoderTests
{
    public static TheoryData<WebSocketRole, int> RolesAndLengths()
    {
        var data = new TheoryData<WebSocketRole, int>();
        foreach (var role in new[] { WebSocketRole.Server, WebSocketRole.Client })
        {
            foreach (int length in new[] { 0, 1, 125, 126, 127, 65535, 65536, 70000 })
            {
                data.Add(role, length);
            }
        }

        return data;
    }

    private static WebSocketRole Peer(WebSocketRole role) =>
        role == WebSocketRole.Server ? WebSocketRole.Client : WebSocketRole.Server;

    private static byte[] Payload(int length)
    {
        var payload = new byte[length];
        new Random(length).NextBytes(payload);
        return payload;
    }

    private static (FrameHeader Header, byte[] Payload) DecodeOne(WebSocketRole reader, byte[] frame)
    {
        var decoder = new FrameDecoder(reader);
        Assert.Equal(OperationStatus.Done, decoder.ReadFrame(frame, out var header, out var payload, out _));
        Assert.Equal(frame.Length, header.FrameLength);
        return (header, payload.ToArray());
    }

    [Theory]
    [MemberData(nameof(RolesAndLengths))]
    public void WriteProducesAMinimalFrameThePeerDecodes(WebSocketRole role, int length)
    {
        var encoder = new FrameEncoder(role);
        byte[] payload = Payload(length);
        byte[] before = (byte[])payload.Clone();
        byte[] frame = new byte[length + 14];
        int written = encoder.Write(frame, WebSocketOpcode.Binary, payload, fin: false);

        Assert.Equal(encoder.GetFrameLength(length), written);
        Assert.Equal(FrameHeaderWriter.GetHeaderLength(length, role == WebSocketRole.Client), written - length);
        Assert.Equal(length <= 125 ? length : length <= 65535 ? 126 : 127, frame[1] & 0x7F);
        Assert.Equal(role == WebSocketRole.Client, (frame[1] & 0x80) != 0);
        Assert.Equal(before, payload); // the caller's payload is never masked in place

        var writer = new ArrayBufferWriter<byte>();
        encoder.Write(writer, WebSocketOpcode.Binary, payload, fin: false);
        Assert.Equal(written, writer.WrittenCount);

        var (header, decoded) = DecodeOne(Peer(role), frame[..written]);
        Assert.Equal(WebSocketOpcode.Binary, header.Opcode);
        Assert.False(header.Fin);
        Assert.Equal(payload, decoded);
    }

    [Theory]
    [MemberData(nameof(RolesAndLengths))]
    public void ReservedFrameCommitsToTheSameFrame(WebSocketRole role, int length)
    {
        var encoder = new FrameEncoder(role);
        byte[] payload = Payload(length);
        var writer = new ArrayBufferWriter<byte>();
        var frame = encoder.Reserve(writer, WebSocketOpcode.Binary, length);
        Assert.Equal(length, frame.Payload.Length);
        payload.CopyTo(frame.Payload);
        frame.Commit();
        Assert.Equal(encoder.GetFrameLength(length), writer.WrittenCount);
        Assert.Equal(payload, DecodeOne(Peer(role), writer.WrittenSpan.ToArray()).Payload);
    }

    [Fact]
    public void ReservedFrameCannotBeCommittedTwice()
    {
        var writer = new ArrayBufferWriter<byte>();
        var frame = new FrameEncoder(WebSocketRole.Server).Reserve(writer, WebSocketOpcode.Binary, 3);
        frame.Commit();
        bool threw = false;
        try
        {
            frame.Commit();
        }
        catch (InvalidOperationException)
        {
            threw = true;
        }

        Assert.True(threw);
        Assert.Equal(5, writer.WrittenCount);
    }

    [Theory]
    [MemberData(nameof(RolesAndLengths))]
    public void PrefixEndsExactlyAtThePayload(WebSocketRole role, int length)
    {
        var encoder = new FrameEncoder(role);
        byte[] payload = Payload(length);
        byte[] buffer = new byte[20 + length];
        payload.CopyTo(buffer, 20);
        int start = encoder.EncodePrefix(buffer, 20, length, WebSocketOpcode.Binary);
        Assert.Equal(20 - encoder.GetHeaderLength(length), start);
        Assert.Equal(payload, DecodeOne(Peer(role), buffer[start..]).Payload);
    }

    [Fact]
    public void PrefixWithoutRoomIsRefused()
    {
        var encoder = new FrameEncoder(WebSocketRole.Client);
        Assert.Throws<ArgumentException>(() => encoder.EncodePrefix(new byte[10], 5, 5, WebSocketOpcode.Binary));
    }

    [Fact]
    public void HeaderOnlyWithManualMaskingRoundTrips()
    {
        var encoder = new FrameEncoder(WebSocketRole.Client);
        byte[] payload = Payload(300);
        byte[] frame = new byte[14 + payload.Length];
        int header = encoder.WriteHeader(frame, WebSocketOpcode.Binary, payload.Length, out int key);
        WebSocketMask.Apply(payload, frame.AsSpan(header), key);
        Assert.Equal(payload, DecodeOne(WebSocketRole.Server, frame[..(header + payload.Length)]).Payload);
    }

    [Theory]
    [InlineData(WebSocketOpcode.Ping)]
    [InlineData(WebSocketOpcode.Pong)]
    [InlineData(WebSocketOpcode.Close)]
    public void InvalidControlFramesAreRefused(WebSocketOpcode opcode)
    {
        var encoder = new FrameEncoder(WebSocketRole.Server);
        Assert.Throws<ArgumentException>(() => encoder.Write(new byte[200], opcode, new byte[126]));
        Assert.Throws<ArgumentException>(() => encoder.Write(new byte[200], opcode, new byte[5], fin: false));
        Assert.Equal(127, encoder.Write(new byte[200], opcode, new byte[125]));
    }

    [Theory]
    [InlineData(3)]
    [InlineData(7)]
    [InlineData(11)]
    [InlineData(15)]
    public void ReservedOpcodesAreRefused(int opcode)
    {
        var encoder = new FrameEncoder(WebSocketRole.Server);
        Assert.Throws<ArgumentOutOfRangeException>(() => encoder.Write(new byte[20], (WebSocketOpcode)opcode, new byte[1]));
    }

    [Theory]
    [InlineData(WebSocketRole.Server)]
    [InlineData(WebSocketRole.Client)]
    public void BatchPacksFramesThatDecodeBackInOrder(WebSocketRole role)
    {
        var encoder = new FrameEncoder(role);
        var random = new Random(42);
        var payloads = Enumerable.Range(0, 100).Select(i => Payload(random.Next(0, i % 10 == 0 ? 1000 : 130))).ToArray();
        byte[] buffer = new byte[payloads.Sum(p => p.Length + 14)];
        var batch = new FrameBatch(encoder, buffer);
        for (int i = 0; i < payloads.Length; i++)
        {
            if (i % 2 == 0)
            {
                Assert.True(batch.TryAdd(WebSocketOpcode.Binary, payloads[i]));
            }
            else
            {
                Assert.True(batch.TryReserve(WebSocketOpcode.Binary, payloads[i].Length, out var target));
                payloads[i].CopyTo(target);
            }
        }

        int written = batch.Complete();
        Assert.Equal(100, batch.FrameCount);
        Assert.Equal(payloads.Sum(p => encoder.GetFrameLength(p.Length)), written);
        AssertFrames(Peer(role), buffer[..written], payloads);
    }

    [Fact]
    public void BatchRefusesAFrameThatDoesNotFitAndWritesNothing()
    {
        var batch = new FrameBatch(new FrameEncoder(WebSocketRole.Server), new byte[10]);
        Assert.True(batch.TryAdd(WebSocketOpcode.Binary, new byte[5]));
        Assert.False(batch.TryAdd(WebSocketOpcode.Binary, new byte[2]));
        Assert.False(batch.TryReserve(WebSocketOpcode.Binary, 2, out _));
        Assert.Equal(7, batch.BytesWritten);
        Assert.Equal(1, batch.FrameCount);
    }

    [Theory]
    [InlineData(WebSocketRole.Server)]
    [InlineData(WebSocketRole.Client)]
    public void BulkWriterSpansChunksAndDecodesBackInOrder(WebSocketRole role)
    {
        var encoder = new FrameEncoder(role);
        var random = new Random(7);
        var payloads = Enumerable.Range(0, 1000).Select(_ => Payload(random.Next(0, 301))).Append(Payload(5000)).ToArray();
        var writer = new ArrayBufferWriter<byte>(16);
        var bulk = new BulkFrameWriter(encoder, writer, sizeHint: 64);
        for (int i = 0; i < payloads.Length; i++)
        {
            if (i % 3 == 0)
            {
                payloads[i].CopyTo(bulk.Reserve(WebSocketOpcode.Binary, payloads[i].Length));
            }
            else
            {
                bulk.Add(WebSocketOpcode.Binary, payloads[i]);
            }
        }

        long total = bulk.Complete();
        Assert.Equal(writer.WrittenCount, total);
        Assert.Equal(payloads.Sum(p => encoder.GetFrameLength(p.Length)), total);
        AssertFrames(Peer(role), writer.WrittenSpan.ToArray(), payloads);
    }

    [Fact]
    public void ClientFramesUseAFreshKeyEachTime()
    {
        var encoder = new FrameEncoder(WebSocketRole.Client);
        var keys = new HashSet<int>();
        for (int i = 0; i < 200; i++)
        {
            byte[] frame = new byte[6];
            encoder.Write(frame, WebSocketOpcode.Binary, []);
            keys.Add(BitConverter.ToInt32(frame, 2));
        }

        Assert.True(keys.Count > 190);
    }

    private static void AssertFrames(WebSocketRole reader, byte[] wire, byte[][] payloads)
    {
        var decoder = new FrameDecoder(reader);
        Span<byte> rest = wire;
        foreach (byte[] expected in payloads)
        {
            Assert.Equal(OperationStatus.Done, decoder.ReadFrame(rest, out var header, out var payload, out _));
            Assert.True(expected.AsSpan().SequenceEqual(payload));
            rest = rest[(int)header.FrameLength..];
        }

        Assert.True(rest.IsEmpty);
    }
}
