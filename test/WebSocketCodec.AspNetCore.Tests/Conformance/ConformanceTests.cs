using System.Text;

namespace WebSocketCodec.AspNetCore.Tests.Conformance;

/// <summary>
/// The demo server at /echo against the Autobahn|Testsuite categories, cleartext and TLS: framing, ping/pong, reserved
/// bits, opcodes, fragmentation, UTF-8 (whole, split at every byte, failing fast), close codes and reasons, limits.
/// Each failure must bring a Close with the exact status before the TCP close.
/// </summary>
/// <remarks>Server-agnostic: a subclass says how to open a websocket on the server under test (also linked into the
/// SpanNetty tests, against the SpanNetty echo server).</remarks>
public abstract class ConformanceTests
{
    /// <summary>Opens a websocket to the echo of the server under test, in cleartext or over TLS.</summary>
    protected abstract Task<RawWebSocket> OpenAsync(bool tls);

    private async Task ExpectCloseAsync(bool tls, int status, params byte[][] frames)
    {
        await using RawWebSocket socket = await OpenAsync(tls);
        await socket.SendAsync([.. frames.SelectMany(f => f)]);
        var (received, _) = await socket.ReadUntilCloseAsync();
        Assert.Equal(status, received);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task PingsArePongedWithTheirPayloadAndPongsAreIgnored(bool tls)
    {
        await using RawWebSocket socket = await OpenAsync(tls);
        byte[] max = new byte[125];
        new Random(125).NextBytes(max);
        await socket.SendAsync([
            .. WireFrames.Client(WebSocketOpcode.Pong, "unsolicited"u8),
            .. WireFrames.Client(WebSocketOpcode.Ping, []),
            .. WireFrames.Client(WebSocketOpcode.Ping, max),
            .. Enumerable.Range(0, 10).SelectMany(i => WireFrames.Client(WebSocketOpcode.Ping, [(byte)i])),
            .. WireFrames.ClientClose(1000)]);
        var (status, before) = await socket.ReadUntilCloseAsync(answer: false);
        Assert.Equal(1000, status);
        Assert.All(before, f => Assert.Equal(WebSocketOpcode.Pong, f.Opcode));
        // Pings in a row may share one Pong, for the latest (RFC 6455 §5.5.3): each Pong answers a later Ping than the
        // one before it, and the last answers the last Ping.
        byte[][] pings = [[], max, .. Enumerable.Range(0, 10).Select(i => new[] { (byte)i })];
        int previous = -1;
        foreach (var pong in before)
        {
            int answered = Array.FindIndex(pings, previous + 1, p => p.AsSpan().SequenceEqual(pong.Payload));
            Assert.True(answered > previous, "a Pong that answers no later Ping");
            previous = answered;
        }

        Assert.Equal(pings.Length - 1, previous);
    }

    [Theory]
    [InlineData(false, 0x89, 126)] // ping over 125 bytes
    [InlineData(true, 0x89, 126)]
    [InlineData(false, 0x09, 1)] // fragmented ping
    [InlineData(false, 0x0A, 1)] // fragmented pong
    [InlineData(false, 0xC1, 1)] // RSV1
    [InlineData(false, 0xA1, 1)] // RSV2
    [InlineData(true, 0x91, 1)] // RSV3
    [InlineData(false, 0xF1, 1)] // all RSV bits
    [InlineData(false, 0x83, 1)] // opcodes 3 to 7
    [InlineData(false, 0x84, 1)]
    [InlineData(false, 0x85, 1)]
    [InlineData(false, 0x86, 1)]
    [InlineData(true, 0x87, 1)]
    [InlineData(false, 0x8B, 1)] // opcodes B to F
    [InlineData(false, 0x8C, 1)]
    [InlineData(false, 0x8D, 1)]
    [InlineData(false, 0x8E, 1)]
    [InlineData(true, 0x8F, 1)]
    [InlineData(false, 0x80, 1)] // continuation with nothing to continue
    public async Task BadFramesAfterAGoodEchoGet1002(bool tls, byte first, int length)
    {
        await using RawWebSocket socket = await OpenAsync(tls);
        await socket.SendAsync([.. WireFrames.Client(WebSocketOpcode.Text, "before"u8), .. WireFrames.Client(first, new byte[length]), .. WireFrames.Client(WebSocketOpcode.Text, "after"u8)]);
        var (status, before) = await socket.ReadUntilCloseAsync();
        Assert.Equal(1002, status);
        Assert.Equal("before", Encoding.UTF8.GetString(Assert.Single(before).Payload)); // and nothing after the violation
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task FragmentsWithControlFramesBetweenAreEchoedWhole(bool tls)
    {
        await using RawWebSocket socket = await OpenAsync(tls);
        await socket.SendAsync([
            .. WireFrames.Client(WebSocketOpcode.Text, "frag"u8, fin: false),
            .. WireFrames.Client(WebSocketOpcode.Ping, "p"u8),
            .. WireFrames.Client(WebSocketOpcode.Continuation, [], fin: false),
            .. WireFrames.Client(WebSocketOpcode.Pong, "q"u8),
            .. WireFrames.Client(WebSocketOpcode.Continuation, "ments"u8),
            .. WireFrames.Client(WebSocketOpcode.Binary, [1], fin: false),
            .. WireFrames.Client(WebSocketOpcode.Continuation, [2]),
            .. WireFrames.ClientClose(1000)]);
        var (status, before) = await socket.ReadUntilCloseAsync(answer: false);
        Assert.Equal(1000, status);
        Assert.Equal(
            [(WebSocketOpcode.Pong, "p"), (WebSocketOpcode.Text, "fragments"), (WebSocketOpcode.Binary, "\u0001\u0002")],
            before.Select(f => (f.Opcode, Encoding.UTF8.GetString(f.Payload))));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ANewMessageInsideAFragmentedOneGets1002(bool tls) =>
        await ExpectCloseAsync(tls, 1002, WireFrames.Client(WebSocketOpcode.Text, "a"u8, fin: false), WireFrames.Client(WebSocketOpcode.Text, "b"u8));

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ValidUtf8SplitAtEveryByteIsEchoedWhole(bool tls)
    {
        byte[] text = Encoding.UTF8.GetBytes("κόσμε 😀 \u00FF\u07FF\u0800\uFFFF\U00010000\U0010FFFF");
        await using RawWebSocket socket = await OpenAsync(tls);
        var frames = new List<byte>();
        for (int i = 0; i < text.Length; i++)
        {
            frames.AddRange(WireFrames.Client(i == 0 ? WebSocketOpcode.Text : WebSocketOpcode.Continuation, text.AsSpan(i, 1), fin: i == text.Length - 1));
        }

        await socket.SendAsync([.. frames, .. WireFrames.ClientClose(1000)]);
        var (_, before) = await socket.ReadUntilCloseAsync(answer: false);
        Assert.Equal(text, Assert.Single(before).Payload);
    }

    public static TheoryData<bool, byte[]> InvalidUtf8() => new()
    {
        { false, [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5, 0xED, 0xA0, 0x80, 0x65, 0x64, 0x69, 0x74, 0x65, 0x64] }, // surrogate
        { true, [0xC0, 0xAF] }, // overlong
        { false, [0xF4, 0x90, 0x80, 0x80] }, // over U+10FFFF
        { false, [0xFE] },
        { false, [0xE0, 0x80, 0xAF] },
        { false, [0x80] }, // lone continuation
        { true, [0xCE, 0xBA, 0xE1] }, // truncated at the end of the message
    };

    [Theory]
    [MemberData(nameof(InvalidUtf8))]
    public async Task InvalidUtf8Gets1007WholeAndSplitAtEveryByte(bool tls, byte[] text)
    {
        await ExpectCloseAsync(tls, 1007, WireFrames.Client(WebSocketOpcode.Text, text));
        var fragments = new List<byte[]>();
        for (int i = 0; i < text.Length; i++)
        {
            fragments.Add(WireFrames.Client(i == 0 ? WebSocketOpcode.Text : WebSocketOpcode.Continuation, text.AsSpan(i, 1), fin: i == text.Length - 1));
        }

        await ExpectCloseAsync(tls, 1007, [.. fragments]);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task InvalidUtf8FailsFastBeforeTheMessageEnds(bool tls)
    {
        await using RawWebSocket socket = await OpenAsync(tls);
        // The first fragment already holds an impossible sequence; the rest of the message is never sent.
        await socket.SendAsync(WireFrames.Client(WebSocketOpcode.Text, [0x61, 0xED, 0xA0, 0x80], fin: false));
        var (status, _) = await socket.ReadUntilCloseAsync();
        Assert.Equal(1007, status);
    }

    [Theory]
    [InlineData(1000)]
    [InlineData(1001)]
    [InlineData(1002)]
    [InlineData(1003)]
    [InlineData(1007)]
    [InlineData(1008)]
    [InlineData(1009)]
    [InlineData(1010)]
    [InlineData(1011)]
    [InlineData(3000)]
    [InlineData(3999)]
    [InlineData(4000)]
    [InlineData(4999)]
    public async Task ValidCloseCodesAreEchoed(int code)
    {
        await using RawWebSocket socket = await OpenAsync(false);
        await socket.SendAsync(WireFrames.ClientClose((ushort)code, "reason"));
        var (status, _) = await socket.ReadUntilCloseAsync(answer: false);
        Assert.Equal(code, status);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(999)]
    [InlineData(1004)]
    [InlineData(1005)]
    [InlineData(1006)]
    [InlineData(1015)]
    [InlineData(1016)]
    [InlineData(1100)]
    [InlineData(2000)]
    [InlineData(2999)]
    [InlineData(5000)]
    [InlineData(65535)]
    public async Task InvalidCloseCodesGet1002(int code) =>
        await ExpectCloseAsync(false, 1002, WireFrames.ClientClose((ushort)code));

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task CloseEdgeCases(bool tls)
    {
        await ExpectCloseAsync(tls, 1005, WireFrames.Client(WebSocketOpcode.Close, [])); // empty Close: empty answer
        await ExpectCloseAsync(tls, 1002, WireFrames.Client(WebSocketOpcode.Close, [0x03])); // one byte
        await ExpectCloseAsync(tls, 1007, WireFrames.Client(WebSocketOpcode.Close, [0x03, 0xE8, 0xCE, 0xBA, 0xE1, 0xBD])); // reason not UTF-8
        await ExpectCloseAsync(tls, 1000, WireFrames.ClientClose(1000, new string('r', 123))); // longest reason
        await ExpectCloseAsync(tls, 1002, WireFrames.Client(0x88, [0x03, 0xE8, .. new byte[124]])); // 126-byte close
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task NothingIsEchoedAfterTheClose(bool tls)
    {
        await using RawWebSocket socket = await OpenAsync(tls);
        await socket.SendAsync([.. WireFrames.ClientClose(1000), .. WireFrames.Client(WebSocketOpcode.Text, "late"u8), .. WireFrames.Client(WebSocketOpcode.Ping, "late"u8)]);
        var (status, before) = await socket.ReadUntilCloseAsync(answer: false);
        Assert.Equal(1000, status);
        Assert.Empty(before);
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AMessageOverTheLimitGets1009(bool tls)
    {
        // 16 MiB is the limit: a frame header announcing one byte more fails at once, before any payload.
        byte[] header = [0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0x01, 1, 2, 3, 4];
        await ExpectCloseAsync(tls, 1009, header);
        // Fragments adding up to more than the limit fail at the fragment that crosses it.
        byte[] eightMiB = new byte[8 << 20];
        await ExpectCloseAsync(tls, 1009,
            WireFrames.Client(WebSocketOpcode.Binary, eightMiB, fin: false),
            WireFrames.Client(WebSocketOpcode.Continuation, eightMiB, fin: false),
            WireFrames.Client(WebSocketOpcode.Continuation, [1]));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task AnUnmaskedClientFrameGets1002(bool tls) =>
        await ExpectCloseAsync(tls, 1002, [0x81, 0x02, (byte)'h', (byte)'i']);

    [Theory]
    [InlineData(false, 16 << 20)]
    [InlineData(true, 4 << 20)]
    public async Task LargeMessagesUpToTheLimitAreEchoed(bool tls, int length)
    {
        await using RawWebSocket socket = await OpenAsync(tls);
        byte[] payload = new byte[length];
        new Random(length).NextBytes(payload);
        await socket.SendAsync(WireFrames.Client(WebSocketOpcode.Binary, payload));
        var echo = await socket.ReadFrameAsync();
        Assert.Equal(payload, echo!.Value.Payload);
        await socket.SendAsync(WireFrames.ClientClose(1000));
        Assert.Equal(1000, (await socket.ReadUntilCloseAsync(answer: false)).Status);
    }
}

/// <summary>The conformance cases over HTTP/1.1 upgrades.</summary>
public sealed class Http1ConformanceTests(EchoServersFixture servers) : ConformanceTests, IClassFixture<EchoServersFixture>
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Get(tls));
}

/// <summary>The conformance cases over HTTP/2 streams (extended CONNECT, h2c prior knowledge or TLS with ALPN h2) on the
/// port that also serves HTTP/1.1: the server's Close comes before END_STREAM.</summary>
public sealed class Http2ConformanceTests(EchoServersFixture servers) : ConformanceTests, IClassFixture<EchoServersFixture>
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenHttp2Async(servers.Get(tls));
}

/// <summary>The conformance cases against the demo server on the lean transport (<c>--transport lean</c>: its epoll
/// loops, its own HTTP/1.1 handshake; TLS through SslStream).</summary>
public sealed class LeanConformanceTests(LeanEchoServersFixture servers) : ConformanceTests, IClassFixture<LeanEchoServersFixture>
{
    protected override Task<RawWebSocket> OpenAsync(bool tls) => RawWebSocket.OpenAsync(servers.Get(tls).Url, servers.Get(tls).EndPoint);
}
