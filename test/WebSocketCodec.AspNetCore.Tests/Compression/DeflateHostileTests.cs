using System.IO.Compression;
using Xunit.Abstractions;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>
/// Hostile permessage-deflate peers against the Kestrel endpoint over a raw socket: compression bombs (1009 at the
/// message limit, the pooled memory at its peak bounded by the limit, not by what the bomb inflates to), deflate data
/// that does not inflate (1007), RSV1 where it is never legal (1002), and a compressed frame on a websocket that did
/// not negotiate the extension (1002). Each checks the Close status on the wire, how the server's websocket ended,
/// and that every pooled buffer came back. (The session's own checks are in WebSocketCodec.Tests' SessionInflateTests.)
/// </summary>
public sealed class DeflateHostileTests(ITestOutputHelper output)
{
    private const string Offer = "permessage-deflate; client_max_window_bits";

    [Fact]
    public async Task A32KiBMessageInflatingTo33MiBFailsWith1009AtTheDefaultLimit()
    {
        byte[] bomb = ReferenceDeflate.Compress(new byte[33 * 1024 * 1024], CompressionLevel.SmallestSize);
        Assert.InRange(bomb.Length, 30 * 1024, 34 * 1024);
        long limit = WebSocketSessionOptions.Default.MaxMessagePayloadLength; // 16 MiB
        long peak = await AttackAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, null, Offer, Fragments(0x42, bomb, 100), 1009, ProtocolViolation.MessageTooBig);
        // The inflated message is bounded by the limit: the pool held the assembled message (at most the limit, in
        // arrays that double) and one inflated frame, never the 33 MiB.
        Assert.True(peak <= 2 * limit, $"{peak} B held at the peak");
    }

    [Fact]
    public async Task A1KiBMessageInflatingTo1MiBFailsWith1009AtA64KiBLimit()
    {
        byte[] bomb = ReferenceDeflate.Compress(new byte[1024 * 1024], CompressionLevel.SmallestSize);
        Assert.InRange(bomb.Length, 900, 1100);
        var session = WebSocketSessionOptions.Default with { MaxMessagePayloadLength = 64 * 1024, CloseTimeout = TimeSpan.FromSeconds(1) };
        long peak = await AttackAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, session, Offer, Fragments(0x41, bomb, 100), 1009, ProtocolViolation.MessageTooBig);
        Assert.True(peak <= 512 * 1024, $"{peak} B held at the peak");
    }

    [Fact]
    public async Task DataThatDoesNotInflateFailsWith1007()
    {
        byte[] valid = ReferenceDeflate.Compress("a first message, so the context is in use"u8.ToArray(), CompressionLevel.SmallestSize);
        await AttackAsync(
            new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, null, Offer,
            [WireFrames.Client(0xC1, valid), WireFrames.Client(0xC2, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF])], // FIN, RSV1: a reserved block type
            1007, ProtocolViolation.InvalidCompressedData, echoes: 1);
    }

    [Fact]
    public async Task Rsv1OnAControlFrameFailsWith1002()
    {
        await AttackAsync(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, null, Offer, [WireFrames.Client(0xC9, "ping"u8)], 1002); // FIN, RSV1, Ping
    }

    [Fact]
    public async Task Rsv1OnAContinuationFrameFailsWith1002()
    {
        byte[] message = ReferenceDeflate.Compress(new byte[4000], CompressionLevel.SmallestSize);
        await AttackAsync(
            new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, null, Offer,
            [WireFrames.Client(0x42, message.AsSpan(0, 4)), WireFrames.Client(0xC0, message.AsSpan(4))], // RSV1 again on the continuation
            1002);
    }

    [Theory]
    [InlineData(true)] // Deflate on, but the client did not offer it
    [InlineData(false)] // the client offered it, Deflate = null declined it
    public async Task ACompressedFrameWhenNotNegotiatedFailsWith1002(bool serverDeflate)
    {
        await AttackAsync(
            serverDeflate ? new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true } : null, null, serverDeflate ? null : Offer,
            [WireFrames.Client(0xC1, ReferenceDeflate.Compress("Hello"u8.ToArray(), CompressionLevel.SmallestSize))], 1002, ProtocolViolation.ReservedBitsSet);
    }

    /// <summary>Opens a websocket with <paramref name="offer"/>, sends <paramref name="frames"/>, and asserts the
    /// server's Close status and how its websocket ended, then that the pool is balanced.</summary>
    /// <returns>The pool's peak held bytes.</returns>
    private async Task<long> AttackAsync(
        PerMessageDeflateOptions? deflate, WebSocketSessionOptions? session, string? offer, byte[][] frames, int status,
        ProtocolViolation? violation = null, int echoes = 0)
    {
        await using DeflateEchoHost host = await DeflateEchoHost.StartAsync(deflate, session);
        using (RawDeflateClient client = await RawDeflateClient.ConnectAsync(host.EndPoint, offer))
        {
            Assert.Equal(deflate is not null && offer is not null, client.Answer is not null);
            try
            {
                foreach (byte[] frame in frames)
                {
                    await client.SendRawAsync(frame);
                }
            }
            catch (IOException)
            {
                // The server may stop reading once it failed the websocket.
            }

            for (int i = 0; i < echoes; i++)
            {
                Assert.NotEqual(WebSocketOpcode.Close, (await client.ReceiveAsync(RawHttp.Timeout())).Opcode);
            }

            Assert.Equal(status, await client.ReadCloseStatusAsync());
            await client.CloseAsync(1000);
        }

        WebSocketCloseInfo end = await host.NextEndAsync();
        output.WriteLine($"{end}; pool peak {host.Pool.PeakHeldBytes} B");
        Assert.Equal((CloseStatus)status, end.SentStatus);
        if (violation is { } expected)
        {
            Assert.Equal(expected, end.Violation);
        }

        await host.AssertPoolBalancedAsync();
        return host.Pool.PeakHeldBytes;
    }

    /// <summary>A compressed message split into <paramref name="count"/> frames: the first with <paramref name="first"/>
    /// (RSV1 and the opcode, no FIN), continuations after it, FIN on the last.</summary>
    private static byte[][] Fragments(byte first, byte[] compressed, int count)
    {
        return Enumerable.Range(0, count).Select(i =>
        {
            ReadOnlySpan<byte> part = compressed.AsSpan(i * compressed.Length / count, ((i + 1) * compressed.Length / count) - (i * compressed.Length / count));
            return WireFrames.Client((byte)((i == 0 ? first : 0x00) | (i == count - 1 ? 0x80 : 0)), part);
        }).ToArray();
    }
}
