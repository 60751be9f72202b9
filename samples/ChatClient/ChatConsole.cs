using System.Net.WebSockets;
using WebSocketCodec.Pipelines;

namespace WebSocketCodec.Samples.ChatClient;

/// <summary>
/// The chat client's session on a <see cref="ReconnectingWebSocket"/>: each non-empty line of the input goes to the
/// room as a <see cref="ChatText"/>, each message from the room is printed as <see cref="ChatLines"/> says, and the
/// connection's events as <see cref="ConnectionLines"/> say. A line typed while disconnected is queued (<c># queued</c>)
/// and sent, in order, once a websocket is open again. At the end of the input the lines still queued go out first
/// (once reconnected), then the websocket is closed with 1000; cancelling (Ctrl+C) closes it with 1000 at once.
/// </summary>
public sealed class ChatConsole
{
    private readonly ChatClientOptions _options;
    private readonly TextWriter _output;
    private TaskCompletionSource _nextConnected = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private WebSocketCloseInfo? _finalClose; // a server's close that ends the client

    private ChatConsole(ChatClientOptions options, TextWriter output)
    {
        _options = options;
        _output = TextWriter.Synchronized(output); // the client's events, the room's messages and the input's lines
    }

    /// <summary>Runs until the input ends, <paramref name="cancellation"/> is cancelled or the client stops for good
    /// (the server refused the handshake, say); prints <c># stopped ...</c> last.</summary>
    /// <returns>0 when this client closed the websocket (end of input, cancellation), 1 when it stopped for another
    /// reason.</returns>
    public static async Task<int> RunAsync(ChatClientOptions options, TextReader input, TextWriter output, CancellationToken cancellation)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(input);
        ArgumentNullException.ThrowIfNull(output);
        return await new ChatConsole(options, output).RunAsync(input, cancellation);
    }

    private async Task<int> RunAsync(TextReader input, CancellationToken cancellation)
    {
        WebSocketClientOptions client = _options.ClientOptions();
        using HttpMessageInvoker? http2 = _options.Http2 ? new HttpMessageInvoker(WebSocketHttp2Client.CreateHandler(client)) : null;
        await using var webSocket = new ReconnectingWebSocket(_options.Url, new ReconnectingWebSocketOptions
        {
            Client = client,
            Http2 = http2,
            Backoff = _options.Backoff,
            WhileDisconnected = DisconnectedSendPolicy.Queue,
        });
        webSocket.Connected += (_, _) =>
        {
            _output.WriteLine(ConnectionLines.Connected);
            Interlocked.Exchange(ref _nextConnected, new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).TrySetResult();
        };
        webSocket.Disconnected += (_, disconnected) =>
        {
            _finalClose = disconnected.WillReconnect ? null : disconnected.CloseInfo;
            _output.WriteLine(ConnectionLines.Disconnected(disconnected.CloseInfo));
        };
        webSocket.Reconnecting += (_, next) => _output.WriteLine(ConnectionLines.Reconnecting(next));

        Task started = webSocket.StartAsync(CancellationToken.None);
        Task printing = PrintAsync(webSocket);
        Task typing = Task.Run(() => TypeAsync(webSocket, input), CancellationToken.None); // Console.In reads block
        Task cancelled = Task.Delay(Timeout.Infinite, cancellation);
        Task first = await Task.WhenAny(typing, webSocket.Completion, cancelled);
        if (first == typing)
        {
            await WhenQueueSentAsync(webSocket, cancelled);
        }

        WebSocketCloseInfo? closed = null;
        if (!webSocket.Completion.IsCompleted)
        {
            closed = await webSocket.CloseAsync(CloseStatus.NormalClosure, "bye", CancellationToken.None); // within the close timeout
        }

        WebSocketStopReason reason = await webSocket.Completion;
        await printing; // the messages received before the end
        await started.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing); // it failed if no websocket ever opened
        _output.WriteLine(reason == WebSocketStopReason.Closed
            ? ConnectionLines.Stopped(reason, closed, null)
            : ConnectionLines.Stopped(reason, _finalClose, _finalClose is null ? webSocket.LastError : null));
        return reason == WebSocketStopReason.Closed ? 0 : 1;
    }

    /// <summary>Sends each non-empty line of the input (the page sends no empty text either) until it ends or the
    /// client stops.</summary>
    private async Task TypeAsync(ReconnectingWebSocket webSocket, TextReader input)
    {
        while (await input.ReadLineAsync() is { } line)
        {
            if (line.Length == 0)
            {
                continue;
            }

            try
            {
                WebSocketSendOutcome outcome = await webSocket.SendAsync(new ChatText(_options.Nick, line).ToUtf8Json(), WebSocketMessageType.Text);
                if (outcome == WebSocketSendOutcome.Queued)
                {
                    _output.WriteLine(ConnectionLines.Queued);
                }
            }
            catch (WebSocketNotConnectedException error)
            {
                _output.WriteLine(ConnectionLines.NotSent(error)); // the queue is full, or the client is stopping
            }
        }
    }

    /// <summary>At the end of the input: waits until no line is queued any more (a websocket took them), the client
    /// stopped, or the wait is cancelled.</summary>
    private async Task WhenQueueSentAsync(ReconnectingWebSocket webSocket, Task cancelled)
    {
        while (true)
        {
            Task connected = Volatile.Read(ref _nextConnected).Task; // raised once the queue was handed to a websocket
            if (webSocket.QueuedMessages == 0 || webSocket.Completion.IsCompleted || cancelled.IsCompleted)
            {
                return;
            }

            await Task.WhenAny(connected, webSocket.Completion, cancelled);
        }
    }

    private async Task PrintAsync(ReconnectingWebSocket webSocket)
    {
        while (await webSocket.ReceiveAsync() is { } message)
        {
            using (message)
            {
                _output.WriteLine(ChatLines.For(message));
            }
        }
    }
}
