using System.IO.Compression;
using System.Text;
using WebSocketCodec.Fuzz.Model;

namespace WebSocketCodec.Bench.Tests.Fuzz;

/// <summary>The reference model pinned by the RFCs' own examples: RFC 6455 §5.7 and RFC 7692 §7.2.3 (framing and RSV1;
/// the compressed payloads are inflated here to show the model hands them over untouched).</summary>
public class ReferenceModelRfcExampleTests
{
    private static readonly ModelOptions Client = new(IsServer: false);
    private static readonly ModelOptions Server = new(IsServer: true);
    private static readonly ModelOptions DeflateClient = new(IsServer: false, PerMessageDeflate: true);

    [Fact]
    public void ASingleFrameUnmaskedTextMessage()
    {
        // 0x81 0x05 0x48 0x65 0x6c 0x6c 0x6f (contains "Hello"): from a server, so read by a client.
        ModelVerdict verdict = Accepted(Client, 0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f);
        Assert.Equal((1, true, 0, "Hello"), Text(verdict.Frames[0]));
        Assert.Equal(ModelRule.WrongMaskBit, Assert.Single(ReferenceModel.Read(Bytes(0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f), Server).Broken));
    }

    [Fact]
    public void ASingleFrameMaskedTextMessage()
    {
        // 0x81 0x85 0x37 0xfa 0x21 0x3d 0x7f 0x9f 0x4d 0x51 0x58 (contains "Hello"): from a client.
        ModelVerdict verdict = Accepted(Server, 0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58);
        Assert.Equal((1, true, 0, "Hello"), Text(verdict.Frames[0]));
    }

    [Fact]
    public void AFragmentedUnmaskedTextMessage()
    {
        // 0x01 0x03 0x48 0x65 0x6c (contains "Hel"), then 0x80 0x02 0x6c 0x6f (contains "lo").
        ModelVerdict verdict = Accepted(Client, 0x01, 0x03, 0x48, 0x65, 0x6c, 0x80, 0x02, 0x6c, 0x6f);
        Assert.Equal((1, false, 0, "Hel"), Text(verdict.Frames[0]));
        Assert.Equal((0, true, 0, "lo"), Text(verdict.Frames[1]));
        Assert.Equal(9, verdict.AcceptedBytes);
    }

    [Fact]
    public void AnUnmaskedPingAndAMaskedPong()
    {
        // Unmasked Ping 0x89 0x05 0x48 0x65 0x6c 0x6c 0x6f; masked Pong 0x8a 0x85 0x37 0xfa 0x21 0x3d 0x7f 0x9f 0x4d 0x51 0x58.
        Assert.Equal((9, true, 0, "Hello"), Text(Accepted(Client, 0x89, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f).Frames[0]));
        Assert.Equal((10, true, 0, "Hello"), Text(Accepted(Server, 0x8a, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58).Frames[0]));
    }

    [Fact]
    public void A256ByteAnd64KiBBinaryMessageInOneUnmaskedFrame()
    {
        // 0x82 0x7E 0x0100 [256 bytes of binary data]; 0x82 0x7F 0x0000000000010000 [65536 bytes of binary data].
        byte[] small = [0x82, 0x7E, 0x01, 0x00, .. Enumerable.Range(0, 256).Select(i => (byte)i)];
        byte[] large = [0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0, .. Enumerable.Range(0, 65536).Select(i => (byte)(i * 7))];
        ModelFrame frame = Assert.Single(Accepted(Client, small).Frames);
        Assert.Equal(small.AsSpan(4).ToArray(), frame.Payload);
        frame = Assert.Single(Accepted(Client, large).Frames);
        Assert.Equal(large.AsSpan(10).ToArray(), frame.Payload);

        // Each cut short anywhere needs more data, with nothing proven wrong.
        foreach (int cut in new[] { 1, 2, 3, 4, 200, 259 })
        {
            ModelVerdict verdict = ReferenceModel.Read(small.AsSpan(0, cut), Client);
            Assert.Equal((ModelEnd.NeedsMoreData, 0, 0), (verdict.End, verdict.Frames.Count, verdict.Broken.Count));
        }
    }

    [Fact]
    public void ACompressedHelloInOneFrameCarriesRsv1()
    {
        // RFC 7692 §7.2.3.1: 0xc1 0x07 0xf2 0x48 0xcd 0xc9 0xc9 0x07 0x00.
        byte[] wire = [0xc1, 0x07, 0xf2, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00];
        ModelFrame frame = Assert.Single(Accepted(DeflateClient, wire).Frames);
        Assert.Equal((1, true, 4), (frame.Opcode, frame.Fin, frame.Rsv));
        Assert.Equal("Hello", Inflate(frame.Payload));

        // Without permessage-deflate RSV1 means nothing negotiated: 1002.
        ModelVerdict plain = ReferenceModel.Read(wire, Client);
        Assert.Equal((ModelEnd.Rejected, ModelRule.ReservedBit), (plain.End, Assert.Single(plain.Broken)));
        Assert.Equal([1002], plain.Statuses);
    }

    [Fact]
    public void ACompressedHelloInTwoFramesHasRsv1OnTheFirstOnly()
    {
        // RFC 7692 §7.2.3.1: 0x41 0x03 0xf2 0x48 0xcd, then 0x80 0x04 0xc9 0xc9 0x07 0x00.
        ModelVerdict verdict = Accepted(DeflateClient, 0x41, 0x03, 0xf2, 0x48, 0xcd, 0x80, 0x04, 0xc9, 0xc9, 0x07, 0x00);
        Assert.Equal((1, false, 4), (verdict.Frames[0].Opcode, verdict.Frames[0].Fin, verdict.Frames[0].Rsv));
        Assert.Equal((0, true, 0), (verdict.Frames[1].Opcode, verdict.Frames[1].Fin, verdict.Frames[1].Rsv));
        Assert.Equal("Hello", Inflate([.. verdict.Frames[0].Payload, .. verdict.Frames[1].Payload]));

        // §6.1: RSV1 set on the continuation as well is a protocol error.
        ModelVerdict bad = ReferenceModel.Read(Bytes(0x41, 0x03, 0xf2, 0x48, 0xcd, 0xc0, 0x04, 0xc9, 0xc9, 0x07, 0x00), DeflateClient);
        Assert.Equal((ModelEnd.Rejected, 1, ModelRule.CompressedBitOutsideMessageStart), (bad.End, bad.Frames.Count, Assert.Single(bad.Broken)));
    }

    [Fact]
    public void TheOtherCompressedHelloShapesOfSection723AreOneRsv1FrameEach()
    {
        // §7.2.3.2 (second message sharing the window), §7.2.3.3 (stored block), §7.2.3.4 (BFINAL set), §7.2.3.5 (two blocks).
        byte[][] frames =
        [
            [0xc1, 0x05, 0xf2, 0x00, 0x11, 0x00, 0x00],
            [0xc1, 0x0b, 0x00, 0x05, 0x00, 0xfa, 0xff, 0x48, 0x65, 0x6c, 0x6c, 0x6f, 0x00],
            [0xc1, 0x08, 0xf3, 0x48, 0xcd, 0xc9, 0xc9, 0x07, 0x00, 0x00],
            [0xc1, 0x0d, 0xf2, 0x48, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xca, 0xc9, 0xc9, 0x07, 0x00],
        ];
        foreach (byte[] wire in frames)
        {
            ModelFrame frame = Assert.Single(Accepted(DeflateClient, wire).Frames);
            Assert.Equal((1, true, 4, wire.Length - 2), (frame.Opcode, frame.Fin, frame.Rsv, frame.Payload.Length));
        }

        Assert.Equal("Hello", Inflate(frames[1].AsSpan(2).ToArray()));
        Assert.Equal("Hello", Inflate(frames[3].AsSpan(2).ToArray()));
    }

    [Fact]
    public void Rsv1IsNeverAllowedOnAControlFrameWithDeflate()
    {
        // A Ping with RSV1 (0xC9) under permessage-deflate, and the same bit allowed as a generic extension bit.
        ModelVerdict ping = ReferenceModel.Read(Bytes(0xC9, 0x00), DeflateClient);
        Assert.Equal((ModelEnd.Rejected, ModelRule.CompressedBitOutsideMessageStart), (ping.End, Assert.Single(ping.Broken)));
        Assert.Single(Accepted(Client with { AllowedRsv = 4 }, 0xC9, 0x00).Frames);
    }

    internal static byte[] Bytes(params int[] values) => [.. values.Select(v => (byte)v)];

    private static ModelVerdict Accepted(ModelOptions options, params int[] wire) => Accepted(options, Bytes(wire));

    private static ModelVerdict Accepted(ModelOptions options, byte[] wire)
    {
        ModelVerdict verdict = ReferenceModel.Read(wire, options);
        Assert.True(verdict.End == ModelEnd.NeedsMoreData && verdict.Broken.Count == 0, verdict.ToString());
        Assert.Equal(wire.Length, verdict.AcceptedBytes);
        return verdict;
    }

    private static (int, bool, int, string) Text(ModelFrame frame) =>
        (frame.Opcode, frame.Fin, frame.Rsv, Encoding.UTF8.GetString(frame.Payload));

    /// <summary>RFC 7692 §7.2.2: append 0x00 0x00 0xff 0xff and inflate.</summary>
    private static string Inflate(byte[] payload)
    {
        using var input = new MemoryStream([.. payload, 0x00, 0x00, 0xff, 0xff]);
        using var inflater = new DeflateStream(input, CompressionMode.Decompress);
        using var output = new MemoryStream();
        byte[] buffer = new byte[64];
        int read;
        try
        {
            while ((read = inflater.Read(buffer)) > 0)
            {
                output.Write(buffer, 0, read);
            }
        }
        catch (InvalidDataException)
        {
            // The stream ends at the sync flush's empty block, without a final block: what was inflated stands.
        }

        return Encoding.UTF8.GetString(output.ToArray());
    }
}
