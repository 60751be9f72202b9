using System.Text.RegularExpressions;

namespace WebSocketCodec.Testing;

/// <summary>
/// Reads an installer's output (npm, apt-get, NuGet restore) to tell a machine that cannot reach its package source
/// from a real failure. Only the first may become a skip; a broken lock file, a bad package name or a restore error of
/// our own must fail the test that needed the install.
/// </summary>
public static partial class InstallOutcome
{
    /// <summary>The first line of <paramref name="output"/> that shows the registry or the network unreachable, or null
    /// when nothing in it does (the failure is then the project's own).</summary>
    public static string? UnreachableLine(string output)
    {
        ArgumentNullException.ThrowIfNull(output);
        return output.Split('\n').Select(line => line.Trim()).FirstOrDefault(line => Unreachable().IsMatch(line));
    }

    /// <summary>For a NuGet restore: the NU1301 line when NU1301 (source unreachable) is the only NU error code in
    /// <paramref name="output"/>; null when there is none, or when another code (a missing package, a version conflict)
    /// shows the failure is not only the network's.</summary>
    public static string? NuGetUnreachableLine(string output)
    {
        ArgumentNullException.ThrowIfNull(output);
        string[] codes = NuGetError().Matches(output).Select(m => m.Groups[1].Value).Distinct().ToArray();
        return codes is ["NU1301"] ? output.Split('\n').First(line => line.Contains("NU1301", StringComparison.Ordinal)).Trim() : null;
    }

    /// <summary>npm's network error codes, apt-get's resolver and fetch failures.</summary>
    [GeneratedRegex(@"\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|network request to .* failed)\b|Temporary failure resolving|Could not resolve '|Could not connect to|Unable to connect to|Failed to fetch http", RegexOptions.CultureInvariant)]
    private static partial Regex Unreachable();

    /// <summary>A NuGet error code as restore prints it: "error NU1101: ...".</summary>
    [GeneratedRegex(@"error (NU\d{4})", RegexOptions.CultureInvariant)]
    private static partial Regex NuGetError();
}
