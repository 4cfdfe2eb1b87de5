import type {PutMetricAlarmCommandInput} from '@aws-sdk/client-cloudwatch'
import {COMPOSITION_ERRORS_METRIC, ENGINE_METRICS_NAMESPACE, STOPPED_METRIC} from '../function-metrics.js'

/** One alarm as PutMetricAlarm sends it. */
export type AlarmDefinition = PutMetricAlarmCommandInput & {AlarmName: string}

export interface AlarmSettings {
  /** The stack's name: the function's, and the prefix of every alarm. */
  name: string
  renderStateMachineArn: string
  batchStateMachineArn: string
  /** Alarm when the function is invoked more often than this in an hour (runaway batches). */
  invocationsPerHour?: number
  /** An SNS topic told when an alarm fires and when it clears; without one the alarms only show in the console. */
  topicArn?: string
}

const FIVE_MINUTES = 300

/**
 * The stack's alarms. A failing composition is the user's (a page error, a missing font with
 * --strict-fonts): the function counts those in its own metric, so `function-faults` fires only
 * for what the stack must fix (a crash, a timeout, the browser dying), computed as Lambda's
 * Errors minus those and minus chunks that stopped because their render had ended; `composition-errors` tells about the others separately.
 */
export function stackAlarms(settings: AlarmSettings): AlarmDefinition[] {
  const {name, topicArn} = settings
  const actions = topicArn ? {AlarmActions: [topicArn], OKActions: [topicArn]} : {}
  const common = {EvaluationPeriods: 1, ComparisonOperator: 'GreaterThanThreshold', TreatMissingData: 'notBreaching', ...actions} as const
  const functionDimension = [{Name: 'FunctionName', Value: name}]
  const executions = (arn: string, metric: string) => ({Namespace: 'AWS/States', MetricName: metric, Dimensions: [{Name: 'StateMachineArn', Value: arn}], Statistic: 'Sum' as const, Period: FIVE_MINUTES})
  return [
    {
      AlarmName: `${name}-invocations-per-hour`,
      AlarmDescription: 'Render function invoked unusually often in an hour (a runaway batch?)',
      Namespace: 'AWS/Lambda',
      MetricName: 'Invocations',
      Dimensions: functionDimension,
      Statistic: 'Sum',
      Period: 3600,
      Threshold: settings.invocationsPerHour ?? 10_000,
      ...common,
    },
    {
      AlarmName: `${name}-function-faults`,
      AlarmDescription: 'Render function invocations failed for a reason other than the composition (crash, timeout, browser or encoder failure)',
      Metrics: [
        {Id: 'errors', MetricStat: {Metric: {Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: functionDimension}, Period: FIVE_MINUTES, Stat: 'Sum'}, ReturnData: false},
        {Id: 'composition', MetricStat: {Metric: {Namespace: ENGINE_METRICS_NAMESPACE, MetricName: COMPOSITION_ERRORS_METRIC, Dimensions: functionDimension}, Period: FIVE_MINUTES, Stat: 'Sum'}, ReturnData: false},
        {Id: 'stopped', MetricStat: {Metric: {Namespace: ENGINE_METRICS_NAMESPACE, MetricName: STOPPED_METRIC, Dimensions: functionDimension}, Period: FIVE_MINUTES, Stat: 'Sum'}, ReturnData: false},
        // FILL: without a composition error or a stop in the period their series are empty, and
        // arithmetic on an empty series is empty: the alarm would never see a fault.
        {Id: 'faults', Expression: 'errors - FILL(composition, 0) - FILL(stopped, 0)', Label: 'Faults', ReturnData: true},
      ],
      Threshold: 0,
      ...common,
    },
    {
      AlarmName: `${name}-composition-errors`,
      AlarmDescription: 'Renders failed on their composition (page errors, invalid variables, missing media or fonts): for the authors, not the stack',
      Namespace: ENGINE_METRICS_NAMESPACE,
      MetricName: COMPOSITION_ERRORS_METRIC,
      Dimensions: functionDimension,
      Statistic: 'Sum',
      Period: 3600,
      Threshold: 10,
      ...common,
    },
    {AlarmName: `${name}-failed-executions`, AlarmDescription: 'Render workflow executions failed', ...executions(settings.renderStateMachineArn, 'ExecutionsFailed'), Threshold: 0, ...common},
    {AlarmName: `${name}-timed-out-executions`, AlarmDescription: 'Render workflow executions ran into their time limit', ...executions(settings.renderStateMachineArn, 'ExecutionsTimedOut'), Threshold: 0, ...common},
    {AlarmName: `${name}-failed-batches`, AlarmDescription: 'Batch workflow executions failed or timed out', ...executions(settings.batchStateMachineArn, 'ExecutionsFailed'), Threshold: 0, ...common},
  ]
}
