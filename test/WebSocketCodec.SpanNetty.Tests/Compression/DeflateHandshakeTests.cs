using System.Text;
using System.Text.RegularExpressions;
using DotNetty.Transport.Channels.Embedded;

namespace WebSocketCodec.SpanNetty.Tests.Compression;

/// <summary>permessage-deflate in the SpanNetty handshakes (EmbeddedChannel): what the server accepts and answers, what
/// the client offers and which answers it takes; and what each side then does with RSV1 frames.</summary>
public sealed partial class DeflateHandshakeTests : LeakCheckedTests
{
    private Recording? _callbacks;

    private (EmbeddedChannel Channel, string Head, byte[] Behind) Accept(string? offer, PerMessageDeflateOptions? deflate, WebSocketSessionOptions? session = null)
    {
        var channel = new EmbeddedChannel(new WebSocketServerUpgradeHandler(
            "/ws", sender => _callbacks = new Recording(sender), new WebSocketAcceptOptions { Deflate = deflate, Session = session ?? WebSocketSessionOptions.Default }));
        channel.WriteInbound(Wire.Buffer(Wire.Request(extra: offer is null ? "" : $"Sec-WebSocket-Extensions: {offer}\r\n")));
        byte[] output = Wire.Outbound(channel);
        string text = Encoding.ASCII.GetString(output);
        int headEnd = text.IndexOf("\r\n\r\n", StringComparison.Ordinal) + 4;
        Assert.StartsWith("HTTP/1.1 101 Switching Protocols\r\n", text);
        return (channel, text[..headEnd], output[headEnd..]);
    }

    private static string? Answer(string head) =>
        head.Split("\r\n").FirstOrDefault(line => line.StartsWith("Sec-WebSocket-Extensions: ", StringComparison.Ordinal))?["Sec-WebSocket-Extensions: ".Length..];

    public static TheoryData<string, bool, string?, bool, bool, int> Offers => new()
    {
        // offer, server keeps its own context (option), the answer (null: declined), server keeps context, client keeps context, server window
        { "permessage-deflate", true, "permessage-deflate", true, true, 15 },
        { "permessage-deflate; client_max_window_bits", true, "permessage-deflate", true, true, 15 },
        { "permessage-deflate; client_no_context_takeover; server_no_context_takeover", true, "permessage-deflate; server_no_context_takeover; client_no_context_takeover", false, false, 15 },
        { "permessage-deflate", false, "permessage-deflate; server_no_context_takeover", false, true, 15 },
        { "permessage-deflate; server_max_window_bits=15", true, "permessage-deflate; server_max_window_bits=15", true, true, 15 },
        // .NET compresses with a 15-bit window only: a smaller one is accepted without context (short messages only).
        { "permessage-deflate; server_max_window_bits=10", true, "permessage-deflate; server_no_context_takeover; server_max_window_bits=10", false, true, 10 },
        { "permessage-deflate; server_max_window_bits=10, permessage-deflate", true, "permessage-deflate; server_no_context_takeover; server_max_window_bits=10", false, true, 10 },
        { "permessage-deflate; unknown=1, permessage-deflate; client_no_context_takeover", true, "permessage-deflate; client_no_context_takeover", true, false, 15 },
        { "x-webkit-deflate-frame, permessage-deflate", true, "permessage-deflate", true, true, 15 },
        { "permessage-deflate; server_max_window_bits=16", true, null, false, false, 0 },
        { "permessage-deflate; server_no_context_takeover; server_no_context_takeover", true, null, false, false, 0 },
        { "permessage-deflate; client_max_window_bits=07", true, null, false, false, 0 },
        { "x-webkit-deflate-frame", true, null, false, false, 0 },
    };

    [Theory]
    [MemberData(nameof(Offers))]
    public void TheServerAcceptsTheFirstOfferItSupportsAndAnswersIt(string offer, bool ownContext, string? answer, bool serverContext, bool clientContext, int serverWindow)
    {
        var (channel, head, _) = Accept(offer, new PerMessageDeflateOptions { PeerContextTakeover = true, OwnContextTakeover = ownContext });
        Assert.Equal(answer, Answer(head));
        DeflateParameters? settled = channel.Pipeline.Get<WebSocketChannelHandler>().Deflate;
        Assert.Equal(answer is not null, settled.HasValue);
        if (settled is { } parameters)
        {
            Assert.Equal(serverContext, parameters.CompressorKeepsContext(WebSocketRole.Server));
            Assert.Equal(clientContext, parameters.DecompressorKeepsContext(WebSocketRole.Server));
            Assert.Equal(serverWindow, parameters.ServerMaxWindowBits);
        }

        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void WithoutDeflateOptionsTheOfferIsDeclinedAndRsv1IsAViolation()
    {
        var (channel, head, _) = Accept("permessage-deflate; client_max_window_bits", deflate: null);
        Assert.Null(Answer(head));
        Assert.Null(channel.Pipeline.Get<WebSocketChannelHandler>().Deflate);

        channel.WriteInbound(Wire.Buffer(WireFrames.Client(0xC1, ReferenceDeflate.Compress("hello"u8))));
        var close = Assert.Single(WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client));
        Assert.Equal(WebSocketOpcode.Close, close.Opcode);
        Assert.Equal(1002, WireFrames.CloseStatusOf(close.Payload));
        Assert.Empty(_callbacks!.Frames);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void TheServerInflatesCompressedMessagesAndCompressesItsOwnFromTheThreshold()
    {
        var (channel, _, _) = Accept("permessage-deflate", new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 16 });
        byte[] json = Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat("{\"id\":7,\"name\":\"user\"},", 20)));

        channel.WriteInbound(Wire.Buffer(WireFrames.Client(0xC1, ReferenceDeflate.Compress(json)))); // whole, compressed
        channel.WriteInbound(Wire.Buffer(WireFrames.Client(WebSocketOpcode.Text, "short"u8))); // uncompressed: allowed
        byte[] output = Wire.Outbound(channel);

        Assert.Equal(json, _callbacks!.Frames[0].Payload); // the listener sees the inflated payload
        Assert.Equal("short"u8.ToArray(), _callbacks.Frames[1].Payload);
        // The echo (Recording sends each frame back with Send): compressed with RSV1, then the short one as it is.
        Assert.Equal(0xC1, output[0]);
        int length = output[1];
        Assert.True(length < json.Length / 4, $"{length} B for {json.Length}");
        Assert.Equal(json, ReferenceDeflate.Inflate(output.AsSpan(2, length)));
        Assert.Equal(0x81, output[2 + length]);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void AServerWindowBelow15CompressesOnlyMessagesThatFitInIt()
    {
        var (channel, _, _) = Accept("permessage-deflate; server_max_window_bits=9", new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true });
        byte[] fits = Encoding.ASCII.GetBytes(new string('a', 512));
        byte[] tooLong = Encoding.ASCII.GetBytes(new string('b', 513));
        _callbacks!.OnLoop(channel, WebSocketRole.Server, sender =>
        {
            sender.Send(WebSocketOpcode.Text, fits);
            sender.Send(WebSocketOpcode.Text, tooLong);
        });
        byte[] output = Wire.Outbound(channel);

        Assert.Equal(0xC1, output[0]);
        int length = output[1];
        Assert.Equal(fits, ReferenceDeflate.Inflate(output.AsSpan(2, length)));
        Assert.Equal(0x81, output[2 + length]); // RSV1 clear: sent as it is
        var plain = Assert.Single(WireFrames.Read(output.AsSpan(2 + length), WebSocketRole.Client));
        Assert.Equal(tooLong, plain.Payload);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void FragmentsAndReservationsGoUncompressedAndCompressOutgoingTurnsCompressionOff()
    {
        var (channel, _, _) = Accept("permessage-deflate", new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 0 });
        byte[] payload = Encoding.ASCII.GetBytes(new string('x', 100));
        _callbacks!.OnLoop(channel, WebSocketRole.Server, sender =>
        {
            sender.Send(WebSocketOpcode.Binary, payload, fin: false);
            sender.Send(WebSocketOpcode.Continuation, payload, fin: true);
            ReservedFrame reserved = sender.Reserve(WebSocketOpcode.Binary, payload.Length);
            payload.CopyTo(reserved.Payload);
            reserved.Commit();
            sender.CompressOutgoing = false;
            sender.Send(WebSocketOpcode.Binary, payload);
            sender.CompressOutgoing = true;
            sender.Send(WebSocketOpcode.Binary, []); // empty, compressed: the single byte 00 (RFC 7692 §7.2.3.6)
        });
        byte[] output = Wire.Outbound(channel);

        var frames = WireFrames.Read(output.AsSpan(0, 4 * (2 + 100)), WebSocketRole.Client);
        Assert.All(frames, frame => Assert.Equal(payload, frame.Payload));
        Assert.Equal([0x02, 0x80, 0x82, 0x82], new[] { output[0], output[102], output[204], output[306] }); // RSV1 clear on all four
        Assert.Equal([0xC2, 0x01, 0x00], output[408..]);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void ACompressedMessageInflatingPastTheLimitGets1009AndTheBuffersGoBack()
    {
        var pool = new CountingPool();
        var session = WebSocketSessionOptions.Default with { MaxMessagePayloadLength = 64 * 1024, Pool = pool };
        var (channel, _, _) = Accept("permessage-deflate", new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, session);
        byte[] bomb = ReferenceDeflate.Compress(new byte[1 << 20]); // 1 MiB of zeros in about 1 KiB
        Assert.True(bomb.Length < 2048, $"{bomb.Length} B");
        // Fragmented over 100 frames, the first with RSV1.
        int step = (bomb.Length + 99) / 100;
        for (int i = 0, offset = 0; offset < bomb.Length; i++, offset += step)
        {
            ReadOnlySpan<byte> part = bomb.AsSpan(offset, Math.Min(step, bomb.Length - offset));
            bool fin = offset + step >= bomb.Length;
            byte first = (byte)((fin ? 0x80 : 0) | (i == 0 ? 0x40 | 0x02 : 0x00));
            channel.WriteInbound(Wire.Buffer(WireFrames.Client(first, part)));
        }

        var close = WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client).Single(frame => frame.Opcode == WebSocketOpcode.Close);
        Assert.Equal(1009, WireFrames.CloseStatusOf(close.Payload));
        Assert.True(_callbacks!.Frames.Sum(frame => frame.Payload.Length) <= 64 * 1024, "never more than the limit handed on");
        Assert.True(pool.HeldBytes <= 256 * 1024, $"{pool.HeldBytes} B held while inflating");
        channel.FinishAndReleaseAll();
        pool.AssertBalanced();
    }

    [Fact]
    public void DataThatDoesNotInflateGets1007AndTheBuffersGoBack()
    {
        var pool = new CountingPool();
        var (channel, _, _) = Accept("permessage-deflate", new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }, WebSocketSessionOptions.Default with { Pool = pool });
        channel.WriteInbound(Wire.Buffer(WireFrames.Client(0xC2, [0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x01]))); // reserved block type 11
        var close = Assert.Single(WireFrames.Read(Wire.Outbound(channel), WebSocketRole.Client));
        Assert.Equal(1007, WireFrames.CloseStatusOf(close.Payload));
        Assert.Empty(_callbacks!.Frames);
        channel.FinishAndReleaseAll();
        pool.AssertBalanced();
    }

    private (EmbeddedChannel Channel, WebSocketClientUpgradeHandler Upgrade, string Key, string Request) Connect(PerMessageDeflateOptions? deflate)
    {
        var upgrade = new WebSocketClientUpgradeHandler(new Uri("ws://example.com/ws"), sender => _callbacks = new Recording(sender, echo: false), new WebSocketClientOptions { Deflate = deflate });
        var channel = new EmbeddedChannel(upgrade);
        string request = Encoding.ASCII.GetString(Wire.Outbound(channel));
        return (channel, upgrade, KeyLine().Match(request).Groups[1].Value, request);
    }

    private static byte[] Response(string key, string? extensions) => Encoding.ASCII.GetBytes(
        $"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {WebSocketHandshake.ComputeAccept(key)}\r\n"
        + (extensions is null ? "" : $"Sec-WebSocket-Extensions: {extensions}\r\n") + "\r\n");

    [Theory]
    [InlineData(true, true, null, "permessage-deflate; client_max_window_bits")]
    [InlineData(false, true, null, "permessage-deflate; client_max_window_bits; client_no_context_takeover")]
    [InlineData(true, false, 10, "permessage-deflate; client_max_window_bits; server_no_context_takeover; server_max_window_bits=10")]
    public void TheClientOffersWhatItsOptionsSay(bool ownContext, bool peerContext, int? peerWindow, string offer)
    {
        var (channel, _, _, request) = Connect(new PerMessageDeflateOptions { OwnContextTakeover = ownContext, PeerContextTakeover = peerContext, PeerMaxWindowBits = peerWindow });
        Assert.Contains($"\r\nSec-WebSocket-Extensions: {offer}\r\n", request, StringComparison.Ordinal);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void WithoutDeflateTheClientOffersNothing()
    {
        var (channel, _, _, request) = Connect(null);
        Assert.DoesNotContain("Sec-WebSocket-Extensions", request, StringComparison.Ordinal);
        channel.FinishAndReleaseAll();
    }

    [Theory]
    [InlineData(null, false, false, false)] // declined: no extension, uncompressed
    [InlineData("permessage-deflate", true, true, true)]
    [InlineData("permessage-deflate; client_no_context_takeover", true, false, true)]
    [InlineData("permessage-deflate; server_no_context_takeover; client_max_window_bits=9", true, false, false)]
    public void TheClientTakesAValidAnswerAndInflatesAndCompresses(string? answer, bool accepted, bool ownContext, bool peerContext)
    {
        var (channel, upgrade, key, _) = Connect(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, Threshold = 8 });
        channel.WriteInbound(Wire.Buffer([.. Response(key, answer), .. WireFrames.Server(WebSocketOpcode.Text, "plain"u8)]));
        Assert.True(upgrade.Completion.IsCompletedSuccessfully);
        WebSocketChannelHandler websocket = Completed.Result(upgrade.Completion);
        Assert.Equal(accepted, websocket.Deflate.HasValue);
        if (websocket.Deflate is { } settled)
        {
            Assert.Equal(ownContext, settled.CompressorKeepsContext(WebSocketRole.Client));
            Assert.Equal(peerContext, settled.DecompressorKeepsContext(WebSocketRole.Client));
            byte[] text = Encoding.ASCII.GetBytes("compressed by the server, compressed by the server");
            channel.WriteInbound(Wire.Buffer(WireFrames.Frame(0xC1, ReferenceDeflate.Compress(text))));
            Assert.Equal(text, _callbacks!.Frames[^1].Payload);
        }

        byte[] message = Encoding.ASCII.GetBytes(new string('m', 300));
        Assert.True(websocket.Sender.TrySend(WebSocketOpcode.Binary, message)); // off the read loop: appended and flushed
        byte[] output = Wire.Outbound(channel);
        Assert.Equal(accepted ? 0xC2 : 0x82, output[0]);
        byte[] payload = Unmask(output);
        Assert.Equal(message, accepted ? ReferenceDeflate.Inflate(payload) : payload);
        Assert.Equal("plain"u8.ToArray(), _callbacks!.Frames[0].Payload);
        channel.FinishAndReleaseAll();
    }

    [Theory]
    [InlineData("permessage-deflate; unknown; server_max_window_bits=10", true)]
    [InlineData("permessage-deflate; server_max_window_bits=16", true)]
    [InlineData("permessage-deflate; server_max_window_bits=10; client_max_window_bits", true)] // a value is required in an answer
    [InlineData("permessage-deflate; server_max_window_bits=10; server_max_window_bits=10", true)]
    [InlineData("permessage-deflate; server_max_window_bits=10, permessage-deflate", true)]
    [InlineData("x-webkit-deflate-frame", true)]
    [InlineData("permessage-deflate; server_max_window_bits=12", true)] // 10 was the most offered
    [InlineData("permessage-deflate", true)] // no window: 15
    [InlineData("permessage-deflate; server_max_window_bits=10", false)] // server_no_context_takeover was asked for, not accepted
    public void ABadAnswerFailsTheHandshakeClearly(string answer, bool peerContext)
    {
        var (channel, upgrade, key, _) = Connect(new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = peerContext, PeerMaxWindowBits = 10 });
        channel.WriteInbound(Wire.Buffer(Response(key, answer)));
        channel.RunPendingTasks();
        var error = Assert.IsType<WebSocketHandshakeException>(upgrade.Completion.Exception?.InnerException);
        Assert.Equal(101, error.StatusCode);
        Assert.Contains("Sec-WebSocket-Extensions", error.Message, StringComparison.Ordinal);
        Assert.False(channel.IsActive);
        Assert.Null(_callbacks);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void AnAnswerToAClientThatOfferedNothingFailsTheHandshake()
    {
        var (channel, upgrade, key, _) = Connect(null);
        channel.WriteInbound(Wire.Buffer(Response(key, "permessage-deflate")));
        channel.RunPendingTasks();
        var error = Assert.IsType<WebSocketHandshakeException>(upgrade.Completion.Exception?.InnerException);
        Assert.Contains("not offered", error.Message, StringComparison.Ordinal);
        channel.FinishAndReleaseAll();
    }

    /// <summary>The payload of the single masked frame (7-bit or 16-bit length) at the start of <paramref name="frame"/>.</summary>
    private static byte[] Unmask(byte[] frame)
    {
        int length = frame[1] & 0x7F;
        int offset = 2;
        if (length == 126)
        {
            length = (frame[2] << 8) | frame[3];
            offset = 4;
        }

        byte[] payload = frame.AsSpan(offset + 4, length).ToArray();
        for (int i = 0; i < payload.Length; i++)
        {
            payload[i] ^= frame[offset + (i & 3)];
        }

        return payload;
    }

    [GeneratedRegex("Sec-WebSocket-Key: ([A-Za-z0-9+/=]+)\r\n")]
    private static partial Regex KeyLine();
}
