<?php
// A PHP client of wallet/v1 for WordPress sites: no dependencies. Inside WordPress it sends with
// wp_remote_request (the site's proxy and TLS settings apply); elsewhere with curl. A money call
// (credit, debit, transfer, hold, capture, void) is retried on a network failure or a passing 503
// (the service's answer when its database is busy, with Retry-After), after the Retry-After when it
// asks for longer than the back-off (over 30 s: thrown at once): the request_id makes a retry a
// repeat, and a hold is captured or voided once, so a retry never moves money twice. A 503 naming a
// missing setting is thrown at once.
declare(strict_types=1);

namespace WalletLedger;

/** A refusal: the HTTP status, the envelope's message and its `error` (an object or a list). */
class WalletRefusal extends \RuntimeException
{
    public function __construct(public readonly int $status, string $message, public readonly mixed $error)
    {
        parent::__construct($message, $status);
    }
}
/** Any other 400 ("invalid input"; login's "Validation error"): `error` says what was refused. */
class InvalidInput extends WalletRefusal {}
/** 400 "Insufficient Balance": nothing was written. */
class InsufficientBalance extends WalletRefusal {}
/** 401 or 403: credentials missing, invalid, or not allowed this; or (401) a wrong security_code. */
class PermissionDenied extends WalletRefusal {}
/** 404: the user, wallet, transaction, hold, batch, key, webhook or event does not exist. */
class NotFound extends WalletRefusal {}
/** 409 "Transaction already exists": the request_id was used; `error` names what used it (`txn_id`, `hold_id`). */
class AlreadyExists extends WalletRefusal {}
/** Any other 409: a hold already resolved, a transaction already reversed, a wallet that exists. */
class Conflict extends WalletRefusal {}
/** 429 or 503: try again later (a money call's 503 was retried first, unless it asked for over 30 s). */
class Unavailable extends WalletRefusal {}
/** The service could not be reached, or answered something that is not its envelope. */
class TransportError extends \RuntimeException {}

final class WalletClient
{
    private const API = '/wp-json/wallet/v1';
    /** A 503 asking to wait longer than this (seconds) is thrown, not sat out. */
    private const MAX_RETRY_AFTER_S = 30;

    /**
     * @param string $site the service's origin, e.g. https://wallet.example.com
     * @param array{username:string,key:string}|array{token:string}|null $auth an API key or a token
     */
    public function __construct(
        private string $site,
        private ?array $auth = null,
        private int $retries = 2,
        private float $retryDelayS = 1.0,
        private int $timeoutS = 15,
    ) {
        $this->site = rtrim($site, '/');
    }

    /** Signs in; the client then sends the access token. */
    public function login(string $email, string $password): array
    {
        $data = $this->call('POST', '/users/login', ['user_email' => $email, 'user_password' => $password]);
        $this->auth = ['token' => $data['access_token']];
        return $data;
    }

    /** Credits `amount` (major units, as text to keep every digit) to a user's wallet. */
    public function credit(int $userId, string $walletId, string $amount, string $requestId, string $note = ''): array
    {
        return $this->money('/credits', compact('walletId', 'amount', 'requestId', 'note') + ['userId' => $userId]);
    }

    public function debit(int $userId, string $walletId, string $amount, string $requestId, string $note = ''): array
    {
        return $this->money('/debits', compact('walletId', 'amount', 'requestId', 'note') + ['userId' => $userId]);
    }

    public function transfer(int $fromUserId, int $toUserId, string $walletId, string $amount, string $requestId, string $note = ''): array
    {
        return $this->call('POST', '/transfers', [
            'from_user_id' => $fromUserId, 'to_user_id' => $toUserId, 'wallet_id' => $walletId,
            'amount' => $amount, 'request_id' => $requestId, 'note' => $note,
        ], true);
    }

    /** Balances by wallet id (GET /user-wallet-balance). */
    public function balance(int $userId, string $walletId): array
    {
        return $this->call('GET', '/user-wallet-balance', ['user_id' => $userId, 'wallet_id' => $walletId]);
    }

    /**
     * One page of a user's transactions, newest first. `$filters`: wallet_id, txn_type, after,
     * before, order, and security_code, the site's TRANSACTIONS_SECURITY_CODE where it sets one
     * (else any integer passes: 0 is sent).
     */
    public function transactions(int $userId, array $filters = [], int $page = 1, int $perPage = 20): array
    {
        return $this->call('GET', '/transactions', ['user_id' => $userId, 'page' => $page, 'per_page' => $perPage] + $filters + ['security_code' => '0']);
    }

    public function placeHold(int $userId, string $walletId, string $amount, string $requestId, string $note = ''): array
    {
        return $this->money('/holds', compact('walletId', 'amount', 'requestId', 'note') + ['userId' => $userId]);
    }

    /** Captures all of a hold, or `amount` of it (the rest is released). */
    public function captureHold(int $holdId, ?string $amount = null): array
    {
        return $this->call('POST', "/holds/{$holdId}/capture", $amount === null ? [] : ['amount' => $amount], true);
    }

    public function voidHold(int $holdId): array
    {
        return $this->call('POST', "/holds/{$holdId}/void", [], true);
    }

    /**
     * Any operation of the document but GET /openapi.json (not an envelope: TransportError): its
     * method, its path under wallet/v1, its parameters; `$retry` retries it as a money call is.
     */
    public function call(string $method, string $path, array $params = [], bool $retry = false): mixed
    {
        $url = $this->site . self::API . $path;
        $body = null;
        if ($method === 'GET') {
            if ($params) $url .= '?' . http_build_query($params);
        } else {
            $body = json_encode((object) $params, JSON_THROW_ON_ERROR | JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE);
        }
        $headers = ['Accept' => 'application/json'] + ($body === null ? [] : ['Content-Type' => 'application/json']) + $this->authHeader();
        for ($attempt = 0; ; $attempt++) {
            $backoffS = $this->retryDelayS * 2 ** $attempt;
            try {
                [$status, $text, $retryAfterS] = $this->send($method, $url, $headers, $body);
            } catch (TransportError $e) {
                if (!$retry || $attempt >= $this->retries) throw $e;
                usleep((int) ($backoffS * 1e6));
                continue;
            }
            // The service's passing 503s carry Retry-After; its 503 without one says a setting is
            // missing, which no retry mends. A 503 that is not its envelope is the platform's.
            if ($status === 503 && $retry && $attempt < $this->retries
                && ($retryAfterS ?? 0) <= self::MAX_RETRY_AFTER_S
                && ($retryAfterS !== null || self::envelope($text) === null)) {
                usleep((int) (max($backoffS, $retryAfterS ?? 0) * 1e6));
                continue;
            }
            return $this->answer($status, $text);
        }
    }

    private function money(string $path, array $f): array
    {
        return $this->call('POST', $path, [
            'user_id' => $f['userId'], 'wallet_id' => $f['walletId'], 'amount' => $f['amount'],
            'request_id' => $f['requestId'], 'note' => $f['note'],
        ], true);
    }

    private function authHeader(): array
    {
        if ($this->auth === null) return [];
        if (isset($this->auth['token'])) return ['Authorization' => 'Bearer ' . $this->auth['token']];
        return ['Authorization' => 'Key ' . base64_encode($this->auth['username'] . ':' . $this->auth['key'])];
    }

    /** The envelope's `data` on success; a typed refusal otherwise. */
    private function answer(int $status, string $text): mixed
    {
        $body = self::envelope($text);
        if ($body === null) {
            throw new TransportError("HTTP {$status}: not a wallet answer: " . substr($text, 0, 200));
        }
        if ($body['status'] === true) return $body['data'];
        $message = (string) ($body['message'] ?? '');
        $error = $body['error'] ?? null;
        throw match (true) {
            $status === 400 && $message === 'Insufficient Balance' => new InsufficientBalance($status, $message, $error),
            $status === 400 => new InvalidInput($status, $message, $error),
            $status === 401, $status === 403 => new PermissionDenied($status, $message, $error),
            $status === 404 => new NotFound($status, $message, $error),
            $status === 409 && $message === 'Transaction already exists' => new AlreadyExists($status, $message, $error),
            $status === 409 => new Conflict($status, $message, $error),
            $status === 429, $status === 503 => new Unavailable($status, $message, $error),
            default => new WalletRefusal($status, $message, $error),
        };
    }

    /** The service's envelope decoded, or null for a body that is not one. */
    private static function envelope(string $text): ?array
    {
        $body = json_decode($text, true);
        return is_array($body) && array_key_exists('status', $body) ? $body : null;
    }

    /** A Retry-After in seconds (its delta-seconds form), or null for none or a date. */
    private static function retryAfter(mixed $value): ?int
    {
        if (is_array($value)) $value = end($value);
        $value = trim((string) $value);
        return preg_match('/^[0-9]{1,9}$/D', $value) ? (int) $value : null;
    }

    /** @return array{int,string,?int} the status, the body and its Retry-After in seconds */
    private function send(string $method, string $url, array $headers, ?string $body): array
    {
        if (function_exists('wp_remote_request')) {
            $res = wp_remote_request($url, ['method' => $method, 'headers' => $headers, 'body' => $body, 'timeout' => $this->timeoutS]);
            if (is_wp_error($res)) throw new TransportError($res->get_error_message());
            return [
                (int) wp_remote_retrieve_response_code($res),
                (string) wp_remote_retrieve_body($res),
                self::retryAfter(wp_remote_retrieve_header($res, 'retry-after')),
            ];
        }
        $curl = curl_init($url);
        $lines = [];
        foreach ($headers as $name => $value) $lines[] = "{$name}: {$value}";
        $retryAfter = null;
        curl_setopt_array($curl, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_TIMEOUT => $this->timeoutS,
            CURLOPT_HEADERFUNCTION => function ($curl, string $line) use (&$retryAfter): int {
                [$name, $value] = explode(':', $line, 2) + [1 => null];
                if ($value !== null && strcasecmp(trim($name), 'retry-after') === 0) $retryAfter = $value;
                return strlen($line);
            },
        ] + ($body === null ? [] : [CURLOPT_POSTFIELDS => $body]));
        // The handle is freed when it goes out of scope (curl_close has done nothing since PHP 8.0,
        // and PHP 8.5 deprecates it with a notice per call).
        $text = curl_exec($curl);
        if ($text === false) throw new TransportError(curl_error($curl));
        $status = (int) curl_getinfo($curl, CURLINFO_RESPONSE_CODE);
        return [$status, $text, self::retryAfter($retryAfter)];
    }
}
