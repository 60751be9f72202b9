using System.Net.WebSockets;

namespace WebSocketCodec.Testing;

/// <summary>Whole messages read from a <see cref="WebSocket"/> (any client: .NET's, ours wrapped), with the count so
/// far published for a producer that paces itself by its slowest reader.</summary>
public static class ReceivedMessages
{
    /// <summary>Receives <paramref name="count"/> whole messages of at most <paramref name="maxLength"/> bytes each,
    /// writing how many arrived so far to <paramref name="progress"/>[<paramref name="index"/>] (when given); gives up
    /// after 90 s.</summary>
    public static async Task<List<byte[]>> ReceiveAsync(WebSocket socket, int count, int[]? progress = null, int index = 0, int maxLength = 4096)
    {
        ArgumentNullException.ThrowIfNull(socket);
        var messages = new List<byte[]>(count);
        byte[] buffer = new byte[maxLength];
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(90));
        while (messages.Count < count)
        {
            int length = 0;
            ValueWebSocketReceiveResult result;
            do
            {
                result = await socket.ReceiveAsync(buffer.AsMemory(length), timeout.Token);
                length += result.Count;
            }
            while (!result.EndOfMessage);

            messages.Add(buffer[..length]);
            if (progress is not null)
            {
                Volatile.Write(ref progress[index], messages.Count);
            }
        }

        return messages;
    }
}
