using System.Text;
using System.Text.RegularExpressions;
using DotNetty.Transport.Channels.Embedded;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.SpanNetty.Tests.Client;

/// <summary>The client's upgrade handler in an EmbeddedChannel: the request it sends, and its checks of the answer.</summary>
public sealed partial class ClientUpgradeTests : LeakCheckedTests
{
    private Recording? _callbacks;

    private (EmbeddedChannel Channel, WebSocketClientUpgradeHandler Upgrade, string Key) Connect(WebSocketClientOptions? options = null, string url = "ws://example.com:9000/chat?room=1")
    {
        var upgrade = new WebSocketClientUpgradeHandler(new Uri(url), sender => _callbacks = new Recording(sender, echo: false), options);
        var channel = new EmbeddedChannel(upgrade);
        string request = Encoding.ASCII.GetString(Wire.Outbound(channel));
        string key = KeyLine().Match(request).Groups[1].Value;
        Assert.NotEmpty(key);
        return (channel, upgrade, key);
    }

    [Fact]
    public void SendsAStrictRequestAndTakesTheFramesBehindThe101()
    {
        var upgrade = new WebSocketClientUpgradeHandler(new Uri("ws://example.com:9000/chat?room=1"), sender => _callbacks = new Recording(sender, echo: false),
            new WebSocketClientOptions { Subprotocols = ["v2", "v1"], Headers = [new("Authorization", "Bearer t")] });
        var channel = new EmbeddedChannel(upgrade);
        string request = Encoding.ASCII.GetString(Wire.Outbound(channel));
        Assert.StartsWith("GET /chat?room=1 HTTP/1.1\r\nHost: example.com:9000\r\n", request);
        Assert.Contains("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n", request);
        Assert.Contains("Sec-WebSocket-Protocol: v2, v1\r\n", request);
        Assert.Contains("Authorization: Bearer t\r\n", request);
        string key = KeyLine().Match(request).Groups[1].Value;

        channel.WriteInbound(Wire.Buffer([
            .. Encoding.ASCII.GetBytes($"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {WebSocketHandshake.ComputeAccept(key)}\r\nSec-WebSocket-Protocol: v1\r\n\r\n"),
            .. WireFrames.Server(WebSocketOpcode.Text, "hello"u8)]));
        Assert.True(upgrade.Completion.IsCompletedSuccessfully);
        Assert.Equal("v1", Completed.Result(upgrade.Completion).Subprotocol);
        Assert.Equal(WebSocketRole.Client, Completed.Result(upgrade.Completion).Role);
        Assert.Equal("hello", Encoding.UTF8.GetString(Assert.Single(_callbacks!.Frames).Payload));
        Assert.Null(channel.Pipeline.Get<WebSocketClientUpgradeHandler>());
        channel.FinishAndReleaseAll();
    }

    /// <summary>The status is what the server answered (101 too, when the 101 itself is wrong), as on the Pipelines
    /// client; none when the answer is not HTTP.</summary>
    public static TheoryData<string, string, int?> WrongAnswers => new()
    {
        { "refused", "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", 403 },
        { "wrong accept", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n", 101 },
        { "no upgrade header", "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n", 101 },
        { "extension not offered", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n", 101 },
        { "subprotocol not offered", "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\nSec-WebSocket-Protocol: other\r\n\r\n", 101 },
        { "not HTTP", "SSH-2.0-OpenSSH\r\n\r\n", null },
    };

    [Theory]
    [MemberData(nameof(WrongAnswers))]
    public void AWrongAnswerFailsTheHandshakeAndClosesTheChannel(string rule, string answer, int? status)
    {
        var (channel, upgrade, key) = Connect();
        channel.WriteInbound(Wire.Buffer(Encoding.ASCII.GetBytes(answer.Replace("{accept}", WebSocketHandshake.ComputeAccept(key), StringComparison.Ordinal))));
        channel.RunPendingTasks();
        var error = Assert.IsType<WebSocketHandshakeException>(upgrade.Completion.Exception?.InnerException);
        Assert.True(status == error.StatusCode, $"{rule}: {error.Message}");
        Assert.False(channel.IsActive);
        Assert.Null(_callbacks);
        channel.FinishAndReleaseAll();
    }

    [Fact]
    public async Task NoAnswerInTimeFailsTheHandshake()
    {
        var (channel, upgrade, _) = Connect(new WebSocketClientOptions { HandshakeTimeout = TimeSpan.FromMilliseconds(100) });
        await Eventually.True(() => Callbacks.FrameHandlerTests.RunDueTasks(channel) && upgrade.Completion.IsCompleted); // wall-clock timer
        Assert.IsType<WebSocketHandshakeException>(upgrade.Completion.Exception?.InnerException);
        Assert.False(channel.IsActive);
        channel.FinishAndReleaseAll();
    }

    [GeneratedRegex("Sec-WebSocket-Key: ([A-Za-z0-9+/=]+)\r\n")]
    private static partial Regex KeyLine();
}
