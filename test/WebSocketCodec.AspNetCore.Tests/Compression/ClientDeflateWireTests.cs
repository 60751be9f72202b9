using System.Net.Sockets;
using System.Net.WebSockets;
using System.Text;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>Our HTTP/1.1 client's permessage-deflate as a hand-written server sees it: the offer, RSV1 frames that
/// inflate independently, the threshold and the per-websocket switch, inflating the server's messages, and the
/// answers a client must refuse (RFC 7692 §5).</summary>
public sealed class ClientDeflateWireTests
{
    private static readonly byte[] Json = Encoding.UTF8.GetBytes(
        string.Concat(Enumerable.Range(0, 30).Select(i => $"{{\"id\":{i},\"name\":\"user{i % 5}\",\"online\":true}},")));

    [Fact]
    public async Task TheClientOffersCompressesWithRsv1AndInflatesTheServersMessages()
    {
        using var server = new RawDeflateServer();
        Task<(Socket Socket, string Request)> accepting = server.AcceptAsync("permessage-deflate");
        await using MessageWebSocket client = await WebSocketClient.ConnectMessagesAsync(
            server.Url, new WebSocketClientOptions { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true } });
        (Socket socket, string request) = await accepting;
        using Socket _ = socket;

        Assert.Contains("\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n", request, StringComparison.Ordinal);
        Assert.Equal(DeflateParameters.Default, client.Driver.Deflate);
        Assert.True(client.Driver.Sender.CompressOutgoing);

        await client.SendAsync(Json, WebSocketMessageType.Text);
        (byte first, byte[] payload) = await RawDeflateServer.ReadFrameAsync(socket);
        Assert.Equal(0xC1, first); // FIN, RSV1, Text
        Assert.True(payload.Length < Json.Length / 4, $"{payload.Length} bytes on the wire for {Json.Length}");
        Assert.Equal(Json, ReferenceDeflate.Inflate(payload));

        await client.SendAsync("tiny"u8.ToArray(), WebSocketMessageType.Binary); // below the threshold
        (first, payload) = await RawDeflateServer.ReadFrameAsync(socket);
        Assert.Equal(0x82, first);
        Assert.Equal("tiny"u8.ToArray(), payload);

        client.Driver.Sender.CompressOutgoing = false; // the per-websocket switch
        await client.SendAsync(Json, WebSocketMessageType.Text);
        (first, payload) = await RawDeflateServer.ReadFrameAsync(socket);
        Assert.Equal(0x81, first);
        Assert.Equal(Json, payload);
        client.Driver.Sender.CompressOutgoing = true;

        // The server's compressed message, whole and then fragmented over three frames (RSV1 on the first only).
        byte[] compressed = ReferenceDeflate.Compress(Json);
        await socket.SendAsync(RawDeflateServer.ServerFrame(0xC1, compressed), RawHttp.Timeout());
        int third = compressed.Length / 3;
        await socket.SendAsync(RawDeflateServer.ServerFrame(0x41, compressed[..third]), RawHttp.Timeout());
        await socket.SendAsync(RawDeflateServer.ServerFrame(0x00, compressed[third..(2 * third)]), RawHttp.Timeout());
        await socket.SendAsync(RawDeflateServer.ServerFrame(0x80, compressed[(2 * third)..]), RawHttp.Timeout());
        await socket.SendAsync(RawDeflateServer.ServerFrame(0xC2, [0x00]), RawHttp.Timeout()); // an empty message
        for (int i = 0; i < 2; i++)
        {
            using WebSocketMessage? message = await client.ReceiveAsync(RawHttp.Timeout());
            Assert.Equal(WebSocketMessageType.Text, message!.Type);
            Assert.Equal(Json, message.Payload.ToArray());
        }

        using (WebSocketMessage? empty = await client.ReceiveAsync(RawHttp.Timeout()))
        {
            Assert.Equal(WebSocketMessageType.Binary, empty!.Type);
            Assert.Equal(0, empty.Length);
        }

        await socket.SendAsync(RawDeflateServer.ServerFrame(0x88, [0x03, 0xE8]), RawHttp.Timeout());
        WebSocketCloseInfo info = await client.Completion.WaitAsync(RawHttp.Timeout());
        Assert.Equal((CloseStatus)1000, info.ReceivedStatus);
    }

    [Fact]
    public async Task WithoutContextTakeoverEachMessageInflatesOnItsOwn()
    {
        using var server = new RawDeflateServer();
        Task<(Socket Socket, string Request)> accepting = server.AcceptAsync("permessage-deflate; client_no_context_takeover");
        var offer = new PerMessageDeflateOptions { PeerContextTakeover = true, OwnContextTakeover = false };
        await using MessageWebSocket client = await WebSocketClient.ConnectMessagesAsync(server.Url, new WebSocketClientOptions { Deflate = offer });
        (Socket socket, string request) = await accepting;
        using Socket _ = socket;

        Assert.Contains("client_no_context_takeover", request, StringComparison.Ordinal);
        Assert.True(client.Driver.Deflate!.Value.ClientNoContextTakeover);
        for (int i = 0; i < 3; i++)
        {
            await client.SendAsync(Json, WebSocketMessageType.Text);
            (byte first, byte[] payload) = await RawDeflateServer.ReadFrameAsync(socket);
            Assert.Equal(0xC1, first);
            Assert.Equal(Json, ReferenceDeflate.Inflate(payload)); // a fresh inflater each time: no back-references
        }
    }

    [Fact]
    public async Task ADeclinedOfferLeavesTheWebSocketUncompressed()
    {
        using var server = new RawDeflateServer();
        Task<(Socket Socket, string Request)> accepting = server.AcceptAsync(extensions: null);
        await using MessageWebSocket client = await WebSocketClient.ConnectMessagesAsync(
            server.Url, new WebSocketClientOptions { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true } });
        using Socket socket = (await accepting).Socket;

        Assert.Null(client.Driver.Deflate);
        Assert.False(client.Driver.Sender.CompressOutgoing);
        await client.SendAsync(Json, WebSocketMessageType.Text);
        (byte first, byte[] payload) = await RawDeflateServer.ReadFrameAsync(socket);
        Assert.Equal(0x81, first);
        Assert.Equal(Json, payload);
    }

    [Theory]
    [InlineData("permessage-deflate", null)] // nothing offered
    [InlineData("x-webkit-deflate-frame", "")]
    [InlineData("permessage-deflate, permessage-deflate", "")]
    [InlineData("permessage-deflate; server_max_window_bits=16", "")]
    [InlineData("permessage-deflate; server_max_window_bits=07", "")]
    [InlineData("permessage-deflate; client_max_window_bits", "")] // a value is required in an answer
    [InlineData("permessage-deflate; server_no_context_takeover; server_no_context_takeover", "")]
    [InlineData("permessage-deflate; server_no_context_takeover=1", "")]
    [InlineData("permessage-deflate; mystery", "")]
    [InlineData("permessage-deflate", "peer-no-context")] // server_no_context_takeover was asked for
    [InlineData("permessage-deflate; server_max_window_bits=12", "peer-window-10")] // above the asked window
    public async Task AnUnacceptableAnswerFailsTheHandshake(string answer, string? offer)
    {
        using var server = new RawDeflateServer();
        Task<(Socket Socket, string Request)> accepting = server.AcceptAsync(answer);
        PerMessageDeflateOptions? deflate = offer switch
        {
            null => null,
            "peer-no-context" => new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = false },
            "peer-window-10" => new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, PeerMaxWindowBits = 10 },
            _ => new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true },
        };

        WebSocketHandshakeException error = await Assert.ThrowsAsync<WebSocketHandshakeException>(
            () => WebSocketClient.ConnectAsync(server.Url, new WebSocketClientOptions { Deflate = deflate }));
        Assert.Equal(101, error.StatusCode);
        Assert.Contains(offer is null ? "not offered" : "Sec-WebSocket-Extensions", error.Message, StringComparison.Ordinal);
        (await accepting).Socket.Dispose();
    }

    [Fact]
    public async Task ASmallerClientWindowIsHonouredByCompressingOnlyMessagesThatFitIt()
    {
        using var server = new RawDeflateServer();
        Task<(Socket Socket, string Request)> accepting = server.AcceptAsync("permessage-deflate; client_max_window_bits=9");
        await using MessageWebSocket client = await WebSocketClient.ConnectMessagesAsync(
            server.Url, new WebSocketClientOptions { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true } });
        using Socket socket = (await accepting).Socket;

        byte[] small = Json[..500];
        byte[] large = [.. Json, .. Json]; // beyond 2^9 bytes
        await client.SendAsync(small, WebSocketMessageType.Binary);
        await client.SendAsync(large, WebSocketMessageType.Binary);
        (byte first, byte[] payload) = await RawDeflateServer.ReadFrameAsync(socket);
        Assert.Equal(0xC2, first);
        Assert.Equal(small, ReferenceDeflate.Inflate(payload));
        (first, payload) = await RawDeflateServer.ReadFrameAsync(socket);
        Assert.Equal(0x82, first);
        Assert.Equal(large, payload);
    }

    [Fact]
    public async Task TheRawTransportHandshakeRefusesADeflateOfferItCannotReport()
    {
        var pipe = new System.IO.Pipelines.Pipe();
        var duplex = new DuplexPipeOf(pipe.Reader, pipe.Writer);
        await Assert.ThrowsAsync<ArgumentException>(() => WebSocketClient.HandshakeAsync(
            duplex, new Uri("ws://127.0.0.1/"), new WebSocketClientOptions { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true } }, CancellationToken.None));
    }

    [Fact]
    public async Task AnOutOfRangeOptionIsTheCallersMistakeBeforeConnecting()
    {
        var options = new WebSocketClientOptions { Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true, PeerMaxWindowBits = 16 } };
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => WebSocketClient.ConnectAsync(new Uri("ws://127.0.0.1:1/"), options));
    }

    private sealed class DuplexPipeOf(System.IO.Pipelines.PipeReader input, System.IO.Pipelines.PipeWriter output) : System.IO.Pipelines.IDuplexPipe
    {
        public System.IO.Pipelines.PipeReader Input { get; } = input;

        public System.IO.Pipelines.PipeWriter Output { get; } = output;
    }
}
