using System.Net.WebSockets;
using System.Text;
using Microsoft.AspNetCore.Builder;

namespace WebSocketCodec.AspNetCore.Tests.Compression;

/// <summary>Messages another thread sends while the read loop's listener is busy wait in the websocket's queue; with
/// permessage-deflate and context takeover they must be compressed in the order they leave, or the peer's inflater
/// (which carries its window from message to message) reads garbage. The peer here is .NET's own
/// <see cref="ClientWebSocket"/>, which keeps the server's context.</summary>
public sealed class QueuedDeflateOrderTests
{
    private sealed class HoldingListener(WebSocketFrameSender sender) : IWebSocketFrameListener
    {
        public static readonly TaskCompletionSource<WebSocketFrameSender> Holding = new(TaskCreationOptions.RunContinuationsAsynchronously);
        public static readonly ManualResetEventSlim Release = new();

        public void OnFrame(WebSocketOpcode opcode, bool fin, int rsv, Span<byte> payload)
        {
            sender.Send(WebSocketOpcode.Text, Message("loop", 0));
            Holding.TrySetResult(sender);
            if (!Release.Wait(TimeSpan.FromSeconds(30)))
            {
                throw new TimeoutException("The test never released the listener.");
            }

            sender.Send(WebSocketOpcode.Text, Message("loop", 1)); // compressed before the queued ones: it leaves first
        }
    }

    private static byte[] Message(string who, int i) =>
        Encoding.UTF8.GetBytes(string.Concat(Enumerable.Repeat($"{{\"from\":\"{who}\",\"n\":{i},\"text\":\"the same words again\"}}", 20)));

    [Fact]
    public async Task MessagesQueuedBehindABusyListenerAreCompressedInTheOrderTheyLeave()
    {
        await using KestrelHost host = await KestrelHost.StartAsync(
            map: app => app.MapWebSocket(
                "/hold",
                (_, sender) => new HoldingListener(sender),
                options => options.Deflate = new PerMessageDeflateOptions { OwnContextTakeover = true, PeerContextTakeover = true }));
        using var client = new ClientWebSocket();
        client.Options.DangerousDeflateOptions = new WebSocketDeflateOptions { ServerContextTakeover = true, ClientContextTakeover = true };
        await client.ConnectAsync(host.WebSocketUrl("/hold"), RawHttp.Timeout());
        await client.SendAsync("go"u8.ToArray(), WebSocketMessageType.Text, true, RawHttp.Timeout());

        WebSocketFrameSender server = await HoldingListener.Holding.Task.WaitAsync(RawHttp.Timeout());
        const int Queued = 20;
        try
        {
            for (int i = 0; i < Queued; i++)
            {
                // Each returns while the listener is still blocked: queued, not yet compressed.
                await server.SendAsync(WebSocketOpcode.Text, Message("other", i)).AsTask().WaitAsync(RawHttp.Timeout());
            }

            Assert.False(HoldingListener.Release.IsSet);
        }
        finally
        {
            HoldingListener.Release.Set();
        }

        var expected = new List<byte[]> { Message("loop", 0), Message("loop", 1) };
        expected.AddRange(Enumerable.Range(0, Queued).Select(i => Message("other", i)));
        foreach (byte[] message in expected)
        {
            Assert.Equal(Encoding.UTF8.GetString(message), Encoding.UTF8.GetString(await ReceiveAsync(client)));
        }

        await client.CloseAsync(WebSocketCloseStatus.NormalClosure, "done", RawHttp.Timeout());
        Assert.Equal(WebSocketCloseStatus.NormalClosure, client.CloseStatus);
    }

    private static async Task<byte[]> ReceiveAsync(ClientWebSocket client)
    {
        var message = new MemoryStream();
        byte[] buffer = new byte[4096];
        while (true)
        {
            WebSocketReceiveResult result = await client.ReceiveAsync(buffer, RawHttp.Timeout());
            Assert.Equal(WebSocketMessageType.Text, result.MessageType);
            message.Write(buffer, 0, result.Count);
            if (result.EndOfMessage)
            {
                return message.ToArray();
            }
        }
    }
}
