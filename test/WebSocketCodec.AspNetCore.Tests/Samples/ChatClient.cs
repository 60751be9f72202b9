using System.Net.WebSockets;
using System.Text;
using System.Threading.Channels;
using WebSocketCodec.Samples.Chat;

namespace WebSocketCodec.AspNetCore.Tests.Samples;

/// <summary>An independent chat member for tests: .NET's <see cref="ClientWebSocket"/> over HTTP/1.1 or HTTP/2, reading
/// all the time (a member that keeps up) into a queue of the texts it got; the server's Close is answered and kept.</summary>
internal sealed class ChatClient : IAsyncDisposable
{
    private readonly ClientWebSocket _socket;
    private readonly Channel<string> _received = Channel.CreateUnbounded<string>(new UnboundedChannelOptions { SingleReader = true });
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _reading;
    private int _receivedCount;

    private ChatClient(ClientWebSocket socket)
    {
        _socket = socket;
        _reading = Task.Run(ReadAsync);
    }

    /// <summary>How many texts arrived so far.</summary>
    public int ReceivedCount => Volatile.Read(ref _receivedCount);

    /// <summary>Why reading stopped, when not by a close handshake.</summary>
    public Exception? Failure { get; private set; }

    /// <summary>Completes with the server's Close status (or null) when the websocket ended.</summary>
    public Task<WebSocketCloseStatus?> Closed { get; private set; } = null!;

    /// <summary>Joins <paramref name="room"/>: over HTTP/2 through <paramref name="http2"/> (extended CONNECT), else
    /// over an HTTP/1.1 upgrade.</summary>
    public static async Task<ChatClient> JoinAsync(ChatServerHost server, string room, HttpMessageInvoker? http2 = null)
    {
        ClientWebSocket socket;
        if (http2 is null)
        {
            socket = new ClientWebSocket();
            socket.Options.RemoteCertificateValidationCallback = (_, _, _, _) => true;
            await socket.ConnectAsync(server.RoomUrl(room), RawHttp.Timeout());
        }
        else
        {
            socket = Http2Requests.Client();
            await socket.ConnectAsync(server.RoomUrl(room), http2, RawHttp.Timeout());
        }

        var client = new ChatClient(socket);
        client.Closed = client._reading.ContinueWith(_ => socket.CloseStatus, TaskScheduler.Default);
        return client;
    }

    public Task SendAsync(string text) =>
        _socket.SendAsync(new ArraySegment<byte>(Encoding.UTF8.GetBytes(text)), WebSocketMessageType.Text, true, RawHttp.Timeout());

    public Task SendBinaryAsync(byte[] payload) =>
        _socket.SendAsync(new ArraySegment<byte>(payload), WebSocketMessageType.Binary, true, RawHttp.Timeout());

    /// <summary>The next <paramref name="count"/> texts, waiting at most 20 s for them.</summary>
    public async Task<List<string>> ReceiveAsync(int count)
    {
        var texts = new List<string>(count);
        CancellationToken timeout = RawHttp.Timeout();
        while (texts.Count < count)
        {
            texts.Add(await _received.Reader.ReadAsync(timeout));
        }

        return texts;
    }

    /// <summary>Every text that arrived, once the websocket ended.</summary>
    public async Task<List<string>> ReceiveRestAsync()
    {
        await _reading.WaitAsync(TimeSpan.FromSeconds(20));
        var texts = new List<string>();
        while (_received.Reader.TryRead(out string? text))
        {
            texts.Add(text);
        }

        return texts;
    }

    public async Task CloseAsync()
    {
        await _socket.CloseAsync(WebSocketCloseStatus.NormalClosure, "bye", RawHttp.Timeout());
        await _reading.WaitAsync(TimeSpan.FromSeconds(20));
    }

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync();
        _socket.Abort();
        try
        {
            await _reading.WaitAsync(TimeSpan.FromSeconds(20)); // a TimeoutException says the abort did not end the read
        }
        catch (Exception error) when (error is WebSocketException or OperationCanceledException)
        {
            // Aborted.
        }

        _socket.Dispose();
        _stop.Dispose();
    }

    private async Task ReadAsync()
    {
        byte[] buffer = new byte[8 * 1024];
        var message = new MemoryStream();
        try
        {
            while (true)
            {
                ValueWebSocketReceiveResult result = await _socket.ReceiveAsync(buffer.AsMemory(), _stop.Token);
                if (result.MessageType == WebSocketMessageType.Close)
                {
                    if (_socket.State == WebSocketState.CloseReceived)
                    {
                        await _socket.CloseOutputAsync(WebSocketCloseStatus.NormalClosure, null, RawHttp.Timeout());
                    }

                    return;
                }

                message.Write(buffer, 0, result.Count);
                if (result.EndOfMessage)
                {
                    Assert.Equal(WebSocketMessageType.Text, result.MessageType); // the chat relays texts only
                    _received.Writer.TryWrite(Encoding.UTF8.GetString(message.GetBuffer(), 0, (int)message.Length));
                    Interlocked.Increment(ref _receivedCount);
                    message.SetLength(0);
                }
            }
        }
        catch (Exception error) when (error is WebSocketException or OperationCanceledException)
        {
            Failure = error; // aborted (DisposeAsync), or the server went away
        }
        finally
        {
            _received.Writer.TryComplete();
        }
    }
}
