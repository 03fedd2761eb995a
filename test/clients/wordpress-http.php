<?php
// The few functions of WordPress's HTTP API (wp-includes/http.php) the PHP client calls inside
// WordPress, standing in for WordPress so the scenario runs that path here: they send through
// PHP's own HTTP stream, not curl, and count their calls.
declare(strict_types=1);

final class WP_Error
{
    public function __construct(private string $message) {}
    public function get_error_message(): string { return $this->message; }
}

$GLOBALS['wp_remote_calls'] = 0;

function wp_remote_request(string $url, array $args = [])
{
    $GLOBALS['wp_remote_calls']++;
    $lines = [];
    foreach ($args['headers'] ?? [] as $name => $value) $lines[] = "{$name}: {$value}";
    $context = stream_context_create(['http' => [
        'method' => $args['method'] ?? 'GET',
        'header' => implode("\r\n", $lines),
        'content' => $args['body'] ?? '',
        'timeout' => $args['timeout'] ?? 5,
        'ignore_errors' => true,
    ]]);
    $body = @file_get_contents($url, false, $context);
    if ($body === false) return new WP_Error("could not reach {$url}");
    preg_match('{^HTTP/\S+ (\d{3})}', $http_response_header[0] ?? '', $status);
    $headers = [];
    foreach (array_slice($http_response_header ?? [], 1) as $line) {
        [$name, $value] = explode(':', $line, 2) + [1 => ''];
        $headers[strtolower(trim($name))] = trim($value);
    }
    return ['response' => ['code' => (int) ($status[1] ?? 0)], 'headers' => $headers, 'body' => $body];
}

function is_wp_error($thing): bool { return $thing instanceof WP_Error; }
function wp_remote_retrieve_response_code($response) { return $response['response']['code'] ?? ''; }
function wp_remote_retrieve_body($response) { return $response['body'] ?? ''; }
function wp_remote_retrieve_header($response, string $name) { return $response['headers'][strtolower($name)] ?? ''; }
