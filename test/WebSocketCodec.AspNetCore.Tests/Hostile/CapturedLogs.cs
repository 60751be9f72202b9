using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace WebSocketCodec.AspNetCore.Tests.Hostile;

/// <summary>Keeps what the server logs at Warning and above: an exception Kestrel or the library did not handle (an
/// unhandled connection or request failure) is logged there, so a test can assert that nothing was thrown unobserved.</summary>
public sealed class CapturedLogs : ILoggerProvider
{
    private readonly ConcurrentQueue<string> _entries = new();

    public IReadOnlyCollection<string> Entries => _entries;

    public ILogger CreateLogger(string categoryName) => new Logger(categoryName, _entries);

    /// <summary>Keeps a failure a host reported without a logger (the lean transport's <c>OnError</c>).</summary>
    public void Record(Exception error) => _entries.Enqueue($"Error: {error}");

    public void Dispose()
    {
    }

    private sealed class Logger(string category, ConcurrentQueue<string> entries) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel))
            {
                entries.Enqueue($"{logLevel} {category}: {formatter(state, exception)} {exception}");
            }
        }
    }
}
