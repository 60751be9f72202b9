using System.Text;
using DotNetty.Transport.Channels.Embedded;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Server;

/// <summary>The server's upgrade handler in an EmbeddedChannel: the 101, the frames behind the request, every refusal
/// with its status, the bounds and the timeout.</summary>
public sealed class ServerUpgradeTests : LeakCheckedTests
{
    private Recording? _callbacks;

    private EmbeddedChannel Server(WebSocketAcceptOptions? accept = null) =>
        new(new WebSocketServerUpgradeHandler("/ws", sender => _callbacks = new Recording(sender), accept));

    [Fact]
    public void AnswersWith101AndHandsTheFramesBehindTheRequestToTheWebSocket()
    {
        EmbeddedChannel channel = Server();
        var upgrade = channel.Pipeline.Get<WebSocketServerUpgradeHandler>();
        channel.WriteInbound(Wire.Buffer([.. Wire.Request(), .. WireFrames.Client(WebSocketOpcode.Text, "behind"u8)]));

        byte[] output = Wire.Outbound(channel);
        string text = Encoding.ASCII.GetString(output);
        int headEnd = text.IndexOf("\r\n\r\n", StringComparison.Ordinal) + 4;
        Assert.StartsWith("HTTP/1.1 101 Switching Protocols\r\n", text);
        Assert.Contains($"Sec-WebSocket-Accept: {Wire.Accept}\r\n", text);
        var echoed = Assert.Single(WireFrames.Read(output.AsSpan(headEnd), WebSocketRole.Client));
        Assert.Equal("behind", Encoding.UTF8.GetString(echoed.Payload));
        Assert.Null(channel.Pipeline.Get<WebSocketServerUpgradeHandler>());
        Assert.NotNull(channel.Pipeline.Get<WebSocketChannelHandler>());
        Assert.True(upgrade.Completion.IsCompletedSuccessfully);
        Assert.Equal(WebSocketRole.Server, Completed.Result(upgrade.Completion).Role);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void HandlersMadeWithOneOptionsInstanceShareItsCapOfOpenWebSockets()
    {
        var accept = new WebSocketAcceptOptions { MaxConcurrentWebSockets = 1 };
        EmbeddedChannel first = Server(accept);
        first.WriteInbound(Wire.Buffer(Wire.Request()));
        Assert.StartsWith("HTTP/1.1 101 ", Encoding.ASCII.GetString(Wire.Outbound(first)));
        var websocket = first.Pipeline.Get<WebSocketChannelHandler>();

        // Over the cap: 503, not upgraded (as the Kestrel endpoint answers).
        EmbeddedChannel second = Server(accept);
        second.WriteInbound(Wire.Buffer(Wire.Request()));
        Assert.StartsWith("HTTP/1.1 503 ", Encoding.ASCII.GetString(Wire.Outbound(second)));
        Assert.Null(second.Pipeline.Get<WebSocketChannelHandler>());
        second.FinishAndReleaseAll();

        // Options of another instance have a count of their own.
        EmbeddedChannel other = Server(new WebSocketAcceptOptions { MaxConcurrentWebSockets = 1 });
        other.WriteInbound(Wire.Buffer(Wire.Request()));
        Assert.StartsWith("HTTP/1.1 101 ", Encoding.ASCII.GetString(Wire.Outbound(other)));
        other.FinishAndReleaseAll();

        // Once the first websocket ended, its place is free again.
        _ = first.CloseAsync();
        Completed.Settle(first, websocket.Completion);
        Assert.True(Completed.Until(first, () => WebSocketAdmission.For(accept)!.Count == 0)); // counted out after the end
        EmbeddedChannel third = Server(accept);
        third.WriteInbound(Wire.Buffer(Wire.Request()));
        Assert.StartsWith("HTTP/1.1 101 ", Encoding.ASCII.GetString(Wire.Outbound(third)));
        third.FinishAndReleaseAll();
        first.FinishAndReleaseAll();
    }

    [Fact]
    public void ARequestAndAFrameSplitAtEveryByteGiveTheSameAnswer()
    {
        byte[] input = [.. Wire.Request("/ws?x=1"), .. WireFrames.Client(WebSocketOpcode.Binary, [1, 2, 3])];
        for (int split = 1; split < input.Length; split++)
        {
            EmbeddedChannel channel = Server();
            channel.WriteInbound(Wire.Buffer(input.AsSpan(0, split)));
            channel.WriteInbound(Wire.Buffer(input.AsSpan(split)));
            byte[] output = Wire.Outbound(channel);
            string text = Encoding.ASCII.GetString(output);
            Assert.StartsWith("HTTP/1.1 101 ", text);
            int headEnd = text.IndexOf("\r\n\r\n", StringComparison.Ordinal) + 4;
            Assert.Equal([1, 2, 3], Assert.Single(WireFrames.Read(output.AsSpan(headEnd), WebSocketRole.Client)).Payload);
            channel.FinishAndReleaseAll();
        }
    }

    public static TheoryData<string, string, int, string?> Refusals => new()
    {
        { "POST", "POST /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 405, "Allow: GET" },
        { "no key", "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n", 400, null },
        { "no Host", "GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 400, null },
        { "HTTP/1.0", "GET /ws HTTP/1.0\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 400, null },
        { "version 8", "GET /ws HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n", 426, "Sec-WebSocket-Version: 13" },
        { "not an upgrade", "GET /ws HTTP/1.1\r\nHost: a\r\n\r\n", 400, null },
        { "another path", "GET /other HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", 404, null },
        { "bare LF", "GET /ws HTTP/1.1\nHost: a\n\n", 400, null },
        { "space before colon", "GET /ws HTTP/1.1\r\nHost : a\r\n\r\n", 400, null },
        { "head over 8 KiB", "GET /ws HTTP/1.1\r\nHost: a\r\nX-Big: " + new string('x', 9000) + "\r\n\r\n", 431, null },
    };

    [Theory]
    [MemberData(nameof(Refusals))]
    public void EveryRefusalGetsItsStatusAndNoWebSocket(string rule, string request, int status, string? header)
    {
        EmbeddedChannel channel = Server();
        var upgrade = channel.Pipeline.Get<WebSocketServerUpgradeHandler>();
        channel.WriteInbound(Wire.Buffer(Encoding.ASCII.GetBytes(request)));
        string response = Encoding.ASCII.GetString(Wire.Outbound(channel));
        Assert.True(response.StartsWith($"HTTP/1.1 {status} ", StringComparison.Ordinal), $"{rule}: {response}");
        Assert.Contains("Connection: close\r\n", response);
        if (header is not null)
        {
            Assert.Contains(header + "\r\n", response);
        }

        Assert.Null(channel.Pipeline.Get<WebSocketChannelHandler>());
        var error = Assert.IsType<WebSocketHandshakeException>(upgrade.Completion.Exception!.InnerException);
        Assert.Equal(status, error.StatusCode);
        Assert.Null(_callbacks);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void AnOriginNotAllowedGets403()
    {
        EmbeddedChannel channel = Server(new WebSocketAcceptOptions { AllowedOrigins = ["https://good.example"] });
        channel.WriteInbound(Wire.Buffer(Wire.Request(extra: "Origin: https://evil.example\r\n")));
        Assert.StartsWith("HTTP/1.1 403 ", Encoding.ASCII.GetString(Wire.Outbound(channel)));
        channel.FinishAndReleaseAll();

        EmbeddedChannel allowed = Server(new WebSocketAcceptOptions { AllowedOrigins = ["https://good.example"] });
        allowed.WriteInbound(Wire.Buffer(Wire.Request(extra: "Origin: https://GOOD.example\r\n")));
        Assert.StartsWith("HTTP/1.1 101 ", Encoding.ASCII.GetString(Wire.Outbound(allowed)));
        allowed.FinishAndReleaseAll();
    }

    [Fact]
    public void TheFirstSubprotocolTheServerSpeaksIsSelected()
    {
        EmbeddedChannel channel = Server(new WebSocketAcceptOptions { Subprotocols = ["chat.v2", "chat.v1"] });
        channel.WriteInbound(Wire.Buffer(Wire.Request(extra: "Sec-WebSocket-Protocol: chat.v1, chat.v2\r\n")));
        Assert.Contains("Sec-WebSocket-Protocol: chat.v2\r\n", Encoding.ASCII.GetString(Wire.Outbound(channel)));
        Assert.Equal("chat.v2", _callbacks!.Sender.Driver.Subprotocol);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public void AnOfferedExtensionIsDeclinedByLeavingItOut()
    {
        EmbeddedChannel channel = Server();
        channel.WriteInbound(Wire.Buffer(Wire.Request(extra: "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n")));
        string response = Encoding.ASCII.GetString(Wire.Outbound(channel));
        Assert.StartsWith("HTTP/1.1 101 ", response);
        Assert.DoesNotContain("Sec-WebSocket-Extensions", response, StringComparison.OrdinalIgnoreCase);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public async Task ARefusedConnectionIsClosedAfterTheLingerAndAnIncompleteHeadAfterTheTimeout()
    {
        EmbeddedChannel refused = Server();
        refused.WriteInbound(Wire.Buffer("GET /nowhere HTTP/1.1\r\nHost: a\r\n\r\n"u8));
        Wire.Outbound(refused);
        Assert.True(refused.IsActive);

        // A head not complete within the handshake timeout: 408, then closed after the same linger.
        EmbeddedChannel slow = Server(new WebSocketAcceptOptions { HandshakeTimeout = TimeSpan.FromMilliseconds(100) });
        var upgrade = slow.Pipeline.Get<WebSocketServerUpgradeHandler>();
        slow.WriteInbound(Wire.Buffer("GET /ws HTTP/1.1\r\nHost:"u8));
        await Eventually.True(() => Callbacks.FrameHandlerTests.RunDueTasks(slow) && upgrade.Completion.IsCompleted); // wall-clock timers
        Assert.StartsWith("HTTP/1.1 408 ", Encoding.ASCII.GetString(Wire.Outbound(slow)));
        Assert.Equal(408, Assert.IsType<WebSocketHandshakeException>(upgrade.Completion.Exception!.InnerException).StatusCode);

        foreach (EmbeddedChannel channel in new[] { refused, slow })
        {
            await Eventually.True(() => Callbacks.FrameHandlerTests.RunDueTasks(channel) && !channel.IsActive); // after the linger
        }
        slow.FinishAndReleaseAll();
        refused.FinishAndReleaseAll();
    }
}
