using System.Diagnostics;
using System.Net.WebSockets;
using System.Text;
using System.Text.Json;

namespace WebSocketCodec.Testing;

/// <summary>A headless Chromium on a page, read through the DevTools protocol (itself a websocket, driven here with
/// <see cref="ClientWebSocket"/>).</summary>
public sealed class HeadlessChromium : IAsyncDisposable
{
    private readonly Process _process;
    private readonly string _profile;
    private readonly ClientWebSocket _devTools = new();
    private int _nextId;

    private HeadlessChromium(Process process, string profile)
    {
        _process = process;
        _profile = profile;
    }

    public static async Task<HeadlessChromium> OpenAsync(string executable, Uri page)
    {
        string profile = Directory.CreateTempSubdirectory("chromium-").FullName;
        var start = new ProcessStartInfo(executable) { RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (string argument in new[]
        {
            "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--ignore-certificate-errors", "--remote-debugging-port=0", $"--user-data-dir={profile}", page.ToString(),
        })
        {
            start.ArgumentList.Add(argument);
        }

        Process process = Process.Start(start)!;
        var chromium = new HeadlessChromium(process, profile);
        try
        {
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            string? line;
            while ((line = await process.StandardError.ReadLineAsync(timeout.Token)) is not null && !line.StartsWith("DevTools listening on ", StringComparison.Ordinal))
            {
            }

            var browser = new Uri(line?["DevTools listening on ".Length..] ?? throw new InvalidOperationException("Chromium exited before DevTools listened."));
            _ = process.StandardError.ReadToEndAsync(); // keep the pipe drained
            using var http = new HttpClient();
            string? target = null;
            while (target is null)
            {
                JsonElement list = JsonSerializer.Deserialize<JsonElement>(await http.GetStringAsync($"http://{browser.Authority}/json/list", timeout.Token));
                target = list.EnumerateArray().Where(t => t.GetProperty("type").GetString() == "page")
                    .Select(t => t.GetProperty("webSocketDebuggerUrl").GetString()).FirstOrDefault();
                if (target is null)
                {
                    await Task.Delay(100, timeout.Token); // polling Chromium's target list, bounded by the timeout
                }
            }

            await chromium._devTools.ConnectAsync(new Uri(target), timeout.Token);
            return chromium;
        }
        catch
        {
            await chromium.DisposeAsync();
            throw;
        }
    }

    /// <summary>Evaluates <paramref name="expression"/> in the page until it returns a string starting with
    /// <paramref name="prefix"/>, and returns it.</summary>
    public async Task<string> WaitForAsync(string expression, string prefix, TimeSpan timeout)
    {
        using var deadline = new CancellationTokenSource(timeout);
        string? value = null;
        while (!deadline.IsCancellationRequested)
        {
            value = await EvaluateAsync(expression, deadline.Token);
            if (value?.StartsWith(prefix, StringComparison.Ordinal) == true)
            {
                return value;
            }

            await Task.Delay(100, CancellationToken.None); // polling the page, bounded by the deadline
        }

        throw new TimeoutException($"'{expression}' was still '{value}' after {timeout}.");
    }

    private async Task<string?> EvaluateAsync(string expression, CancellationToken cancellationToken)
    {
        int id = ++_nextId;
        string command = JsonSerializer.Serialize(new { id, method = "Runtime.evaluate", @params = new { expression, returnByValue = true } });
        await _devTools.SendAsync(Encoding.UTF8.GetBytes(command), WebSocketMessageType.Text, true, cancellationToken);
        byte[] buffer = new byte[64 * 1024];
        while (true)
        {
            var message = new MemoryStream();
            WebSocketReceiveResult result;
            do
            {
                result = await _devTools.ReceiveAsync(buffer, cancellationToken);
                message.Write(buffer, 0, result.Count);
            }
            while (!result.EndOfMessage);
            JsonElement reply = JsonSerializer.Deserialize<JsonElement>(message.ToArray());
            if (reply.TryGetProperty("id", out JsonElement replyId) && replyId.GetInt32() == id)
            {
                return reply.GetProperty("result").GetProperty("result").TryGetProperty("value", out JsonElement value) && value.ValueKind == JsonValueKind.String
                    ? value.GetString()
                    : null;
            }
        }
    }

    public async ValueTask DisposeAsync()
    {
        _devTools.Dispose();
        if (!_process.HasExited)
        {
            _process.Kill(entireProcessTree: true);
        }

        await _process.WaitForExitAsync();
        _process.Dispose();
        try
        {
            Directory.Delete(_profile, recursive: true);
        }
        catch (IOException)
        {
            // A file the browser still held: the temp folder is cleaned by the OS.
        }
    }
}
